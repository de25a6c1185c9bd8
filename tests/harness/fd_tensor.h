/* SPDX-License-Identifier: MIT */
/*
 * fd_tensor.h - strided tensors for the op-family tests, on top of fd_test.h.
 *
 * - Layouts (fd_layout_*): dims plus element strides, built in a fixed dim order (NCHW, NHWC,
 *   reversed) with a chosen innermost stride and gap, or drawn at random (NCHW, NHWC, padded,
 *   permuted); the offset of a canonical (row-major over the dims) index; a checked descriptor.
 * - Moving data: scatter a canonical double array into a strided buffer, gather it back, copy
 *   the element bytes out in canonical order.
 * - Holes (the bytes of a strided buffer that belong to no element): equal to a snapshot, or
 *   still the 0xFF poison of fd_buf_poison().
 * - fd_tb_t (tensor buffer): a layout, a dtype, a guarded buffer, its descriptor and a snapshot,
 *   for tests that keep the four together.
 * - Scaling factors as the API takes them (double for DOUBLE outputs, float otherwise); the
 *   ref + cpu handle pair; NaN-aware equality.
 * Nothing here computes an op: every test keeps its own oracle.
 */
#ifndef FD_TENSOR_H_
#define FD_TENSOR_H_

#include <stddef.h>
#include <stdint.h>

#include "fd_test.h"

#define FD_MAXD 8 /* CUDNN_DIM_MAX */

/* ---- layouts ---- */
typedef struct {
    int nb, dim[FD_MAXD], stride[FD_MAXD]; /* dims in cuDNN order (N, C, spatial...) */
    int64_t count;                         /* elements: the product of dim */
    int64_t extent;                        /* elements a buffer needs: 1 + sum (dim-1)*stride */
} fd_layout_t;

/* Dim orders of fd_layout_ordered(), innermost dim last in each name:
 * NCHW: dim nb-1 innermost; NHWC: C innermost, then W, H.., N outermost (NCHW when nb < 3);
 * REVERSED: dim 0 (N) innermost, dim nb-1 outermost. */
enum { FD_ORDER_NCHW, FD_ORDER_NHWC, FD_ORDER_REVERSED };

/* Dense-with-gaps strides in a fixed order: the innermost dim gets stride `inner`, each next
 * dim the previous dim's stride * size + `gap` (inner 1, gap 0: packed). Sets count, extent. */
void fd_layout_ordered(fd_layout_t *l, int nb, const int *dim, int order, int inner, int gap);

/* Kinds of fd_layout_random(); fd_layout_name[kind] is a short name for repro lines. */
enum { FD_LAYOUT_NCHW, FD_LAYOUT_NHWC, FD_LAYOUT_PADDED, FD_LAYOUT_PERMUTED, FD_LAYOUT_COUNT };
extern const char *const fd_layout_name[FD_LAYOUT_COUNT];
/* NCHW / NHWC packed; PADDED: NCHW order, innermost stride 1 or 2, each other stride with a
 * gap of 0..3; PERMUTED: a random dim order with gaps of 0..3 (innermost stride 1..4). Draws
 * from r for PADDED and PERMUTED only. Sets count, extent. */
void fd_layout_random(fd_layout_t *l, int nb, const int *dim, int kind, fd_rng_t *r);

/* Recompute count and extent after setting nb, dim, stride by hand. */
void fd_layout_finish(fd_layout_t *l);
/* Element offset of the canonical (row-major over dim) index k. */
int64_t fd_layout_offset(const fd_layout_t *l, int64_t k);
/* A new Nd descriptor of l; creation and setting are one expectation. */
cudnnTensorDescriptor_t fd_layout_desc(const fd_layout_t *l, cudnnDataType_t dt);
/* A guarded buffer of extent elements of dt (payload zeroed). */
fd_buf_t fd_layout_alloc(const fd_layout_t *l, cudnnDataType_t dt);

/* Canonical doubles v[0..count) -> elements of base (stored as dt), and back. */
void fd_layout_scatter(const fd_layout_t *l, cudnnDataType_t dt, void *base, const double *v);
void fd_layout_gather(const fd_layout_t *l, cudnnDataType_t dt, const void *base, double *v);
/* The stored bytes of every element into dst, in canonical order. */
void fd_layout_bits(const fd_layout_t *l, cudnnDataType_t dt, const void *base, unsigned char *dst);

/* 1 when every byte of base that belongs to no element equals the same byte of snap. */
int fd_layout_holes_equal(const fd_layout_t *l, cudnnDataType_t dt, const void *base,
                          const unsigned char *snap);
/* 1 when every byte of base that belongs to no element is still 0xFF (fd_buf_poison). */
int fd_layout_holes_poisoned(const fd_layout_t *l, cudnnDataType_t dt, const void *base);

/* ---- tensor buffers ---- */
typedef struct {
    fd_layout_t l;
    cudnnDataType_t dt;
    size_t es; /* element bytes */
    fd_buf_t b;
    cudnnTensorDescriptor_t d;
    unsigned char *snap; /* payload bytes at fd_tb_snap(), for the hole check */
} fd_tb_t;

/* Buffer (zeroed), snapshot space and descriptor; creating and setting the descriptor are two
 * expectations. Recomputes count and extent of its copy of l (hand-written layouts need not). */
void fd_tb_init(fd_tb_t *t, const fd_layout_t *l, cudnnDataType_t dt);
void fd_tb_free(fd_tb_t *t);
void fd_tb_scatter(fd_tb_t *t, const double *v);
void fd_tb_gather(const fd_tb_t *t, double *v);
void fd_tb_snap(fd_tb_t *t);
/* 1 when the guards are intact and every hole byte is as at fd_tb_snap(). */
int fd_tb_holes_ok(const fd_tb_t *t);

/* ---- scalars, handles, values ---- */
/* A scaling factor (alpha, beta, ...) as the API reads it for an output of type dt. */
typedef union {
    float f;
    double d;
} fd_scalar_t;
fd_scalar_t fd_scalar(cudnnDataType_t dt, double v);

/* A handle on the ref and one on the cpu backend; each creation is one expectation. */
void fd_handles_create(cudnnHandle_t *ref, cudnnHandle_t *cpu);

/* a == b, or both NaN. */
int fd_same_value(double a, double b);

#endif /* FD_TENSOR_H_ */
