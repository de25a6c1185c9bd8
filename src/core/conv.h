/* SPDX-License-Identifier: MIT */
/*
 * conv.h - the flat convolution problem and the implementation interface.
 *
 * Only fd_conv_problem_init reads descriptors; dispatch, implementations and the tuning key
 * see this struct. Sizes are in elements, 64-bit; spatial arrays are padded to 3 entries
 * (size 1, pad 0, stride 1, dilation 1) so kernels can always loop over D, H, W.
 */
#ifndef FD_CORE_CONV_H_
#define FD_CORE_CONV_H_

#include <string.h>

#include "fd.h"

typedef enum { FD_CONV_FWD = 0, FD_CONV_BWD_DATA = 1, FD_CONV_BWD_FILTER = 2, FD_CONV_DIR_COUNT } fd_conv_dir_t;

typedef struct fd_conv_problem {
    fd_conv_dir_t dir;
    int nsp;                                /* spatial dims of the descriptors: 1, 2 or 3 */
    int64_t n, c, k, groups;                /* c, k: all channels (c = groups * filter C) */
    int64_t in[FD_CONV_SPATIAL_MAX];        /* x spatial (D, H, W order, leading 1s) */
    int64_t out[FD_CONV_SPATIAL_MAX];       /* y spatial */
    int64_t flt[FD_CONV_SPATIAL_MAX];       /* filter spatial */
    int64_t pad[FD_CONV_SPATIAL_MAX], stride[FD_CONV_SPATIAL_MAX], dil[FD_CONV_SPATIAL_MAX];
    int cross_correlation;                  /* 0: CUDNN_CONVOLUTION (filter flipped) */
    cudnnDataType_t xdt, wdt, ydt, compute; /* storage types and accumulation type */
    cudnnMathType_t math;
    cudnnTensorFormat_t wformat;
    /* element strides: x/y as N, C, spatial...; w as K, C/groups, spatial... */
    int64_t xs[2 + FD_CONV_SPATIAL_MAX], ys[2 + FD_CONV_SPATIAL_MAX], ws[2 + FD_CONV_SPATIAL_MAX];
    /* INT8 (docs/int8.md): channels per NCHW_VECT_C vector (4 or 32), else 1. With v > 1 the
     * strides above are in elements (descriptor strides times v) and channel c sits at
     * (c / v) * s[1] + c % v: fd_conv_chan_off. Only the int8 rows read these. */
    int xvect, wvect, yvect;
} fd_conv_problem_t;

/* Element offset of channel c along a C stride s1 of a layout with v channels per vector. */
static inline int64_t fd_conv_chan_off(int64_t c, int v, int64_t s1)
{
    return v == 1 ? c * s1 : (c / v) * s1 + c % v;
}

/* 1 for the INT8 family of configurations (INT32 accumulation; src/ref/conv_int8_ref.c). */
static inline int fd_conv_is_int8(const fd_conv_problem_t *p)
{
    return p->compute == CUDNN_DATA_INT32;
}

/* Tensors of one call. For FWD `out` is y; BWD_DATA dx (shaped like x); BWD_FILTER dw. */
typedef struct fd_conv_args {
    cudnnHandle_t handle;
    const void *x, *w, *y; /* the two inputs of the direction; the third is NULL */
    void *out;
    double alpha, beta;
    void *workspace;
    size_t workspace_size;
    /* The call's plan state (core/conv_plan.c: FD_CONV_PLAN_STATE bytes, 64-byte aligned, zeroed
     * when the plan was made) where the call came through a handle's plan cache, else NULL: a
     * row may keep what it derived from the problem there (launch geometry, tensor maps for the
     * pointers of the last call) and reuse it while its own check of the call still matches. */
    void *state;
} fd_conv_args_t;

/* ---- plans: a handle's memo of a compute call's problem, implementation and workspace ---- */

#define FD_CONV_PLAN_STATE 4096
typedef struct fd_conv_plan {
    fd_conv_problem_t p;
    const struct fd_conv_impl *impl;
    size_t need;                 /* impl->workspace(&p) */
    size_t bytes[3];             /* what x, w and y (problem_init's order) address, for the overlap check */
    unsigned char state[FD_CONV_PLAN_STATE] __attribute__((aligned(64)));
} fd_conv_plan_t;

/* The plan of a call on these descriptors (problem_init's argument order) and algorithm, or NULL:
 * a plan matches while every descriptor holds the same bytes it held when the plan was made, so
 * a changed or destroyed descriptor misses. NULL descriptors miss. */
fd_conv_plan_t *fd_conv_plan_find(cudnnHandle_t h, fd_conv_dir_t dir, int algo, cudnnTensorDescriptor_t x,
                                  cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c,
                                  cudnnTensorDescriptor_t y);
/* The head of a row's plan state: what the values the row keeps after it were derived from.
 * A row that calls itself on derived problems or pointers (a split, a transposed problem) stays
 * correct because the whole problem and every pointer and scale are compared. */
typedef struct fd_conv_state_key {
    const void *tag; /* the row's own static object: whose state this is */
    const void *x, *w, *y, *out, *workspace;
    double alpha, beta;
    fd_conv_problem_t p;
} fd_conv_state_key_t;

static inline int fd_conv_state_hit(const fd_conv_state_key_t *k, const void *tag, const fd_conv_problem_t *p,
                                    const fd_conv_args_t *a)
{
    return k->tag == tag && k->x == a->x && k->w == a->w && k->y == a->y && k->out == a->out &&
           k->workspace == a->workspace && memcmp(&k->alpha, &a->alpha, sizeof a->alpha) == 0 &&
           memcmp(&k->beta, &a->beta, sizeof a->beta) == 0 && memcmp(&k->p, p, sizeof *p) == 0;
}

static inline void fd_conv_state_set(fd_conv_state_key_t *k, const void *tag, const fd_conv_problem_t *p,
                                     const fd_conv_args_t *a)
{
    k->tag = tag, k->x = a->x, k->w = a->w, k->y = a->y, k->out = a->out, k->workspace = a->workspace;
    k->alpha = a->alpha, k->beta = a->beta;
    k->p = *p;
}

/* Remembers a checked call (replacing the least recently used plan); its state zeroed. */
fd_conv_plan_t *fd_conv_plan_store(cudnnHandle_t h, fd_conv_dir_t dir, int algo, cudnnTensorDescriptor_t x,
                                   cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c,
                                   cudnnTensorDescriptor_t y, const fd_conv_problem_t *p,
                                   const struct fd_conv_impl *impl, size_t need);
/* The handle's plan cache, made and freed with the handle (cudnnCreate / cudnnDestroy). */
cudnnStatus_t fd_conv_plans_create(cudnnHandle_t h);
void fd_conv_plans_free(cudnnHandle_t h);

/* Bits of fd_conv_impl_t.flags (the last field of a src/impls.def row). */
#define FD_IMPL_DET 1 /* the same bits run after run, and for any thread count */
/* Get*_v7 ranks it after every row of its backend that may take a workspace, unless the
 * heuristic picked it (the cpu's workspace-free implicit GEMMs: src/api/conv.c rank_all) */
#define FD_IMPL_LATE 2

/* One implementation (a row of src/impls.def). */
typedef struct fd_conv_impl {
    const char *name;
    fd_backend_t backend;
    fd_conv_dir_t dir;
    unsigned algo_mask; /* bit a set: serves algorithm enum value a */
    int flags;          /* FD_IMPL_* */
    /* 1 if it can run `p`; otherwise 0 and the reason in why. */
    int (*applicable)(const fd_conv_problem_t *p, char *why, size_t why_size);
    size_t (*workspace)(const fd_conv_problem_t *p);
    cudnnStatus_t (*run)(const fd_conv_problem_t *p, const fd_conv_args_t *a);
} fd_conv_impl_t;

/* cudnnConvolutionBackwardBias: db = alpha * (dy summed over all dims but C) + beta * db. */
typedef struct fd_bias_problem {
    struct cudnnTensorStruct dy, db; /* validated copies: db is 1 x K x 1... */
} fd_bias_problem_t;
typedef struct fd_bias_args {
    cudnnHandle_t handle; /* its stream, on cuda */
    const void *dy;
    void *db;
    double alpha, beta;
} fd_bias_args_t;

/* Reference building blocks shared by the conv rows and the fused ones (src/ref/conv_ref.c). */
double fd_conv_ref_fwd_point(const fd_conv_problem_t *p, const void *x, const void *w, int64_t n,
                             int64_t k, int64_t o0, int64_t o1, int64_t o2);

/* The INT8 epilogue as cuDNN documents it (docs/int8.md), shared by the int8 rows: in float,
 * v = alpha * (float)acc, plus beta * (float)y_old when beta != 0 (y_old never read otherwise);
 * stored as float, or for integer outputs rounded to nearest even and saturated (NaN -> 0). */
void fd_conv_int8_store(cudnnDataType_t ydt, void *y, int64_t off, int32_t acc, float alpha,
                        float beta);
/* The scalar type of one lane of an int8-family storage type (INT8x4 -> INT8, ...). */
cudnnDataType_t fd_conv_int8_lane(cudnnDataType_t dt);

/* Descriptor checks shared by every direction; fills *p. Statuses as in contract §1.2. */
cudnnStatus_t fd_conv_problem_init(fd_conv_problem_t *p, fd_conv_dir_t dir,
                                   cudnnTensorDescriptor_t xDesc, cudnnFilterDescriptor_t wDesc,
                                   cudnnConvolutionDescriptor_t convDesc,
                                   cudnnTensorDescriptor_t yDesc);

/* Output dims of a forward convolution (n, k, spatial...), with cuDNN's checks. */
cudnnStatus_t fd_conv_output_dims(cudnnConvolutionDescriptor_t convDesc,
                                  cudnnTensorDescriptor_t xDesc, cudnnFilterDescriptor_t wDesc,
                                  int nb_dims, int *out);

/* "fwd n2c4d1h9w9 k8r3s3 p1x1 u1x1 d1x1 g1 xcorr f32/f32/f32 acc=f32": the problem's text key. */
void fd_conv_problem_key(const fd_conv_problem_t *p, char *buf, size_t size);

int fd_conv_algo_count(fd_conv_dir_t dir);
const char *fd_conv_algo_name(fd_conv_dir_t dir, int algo);

/* The implementation table, and the first implementation of `algo` that can run `p` on the
 * handle's backend (cpu falls back to ref). NULL with the reasons in why when there is none. */
extern const fd_conv_impl_t fd_conv_impls[];
extern const int fd_conv_impl_count;
const fd_conv_impl_t *fd_conv_select(const fd_conv_problem_t *p, fd_backend_t backend, int algo,
                                     char *why, size_t why_size);

#endif /* FD_CORE_CONV_H_ */
