/* SPDX-License-Identifier: MIT */
/*
 * conv_tc_pad.cu - the tensor-core rows for channel counts that are not multiples of 8 (the
 * 3-channel stem of every ImageNet network above all): the activations and the filter are
 * copied into the workspace with C rounded up to C8 = 8 * ceil(C / 8), the new channels zero,
 * as packed NHWC / KRSC, and the tensor-core row of src/cuda/conv_tc.cu runs on those copies.
 * Rows (src/impls.def):
 *   fd_conv_fwd_tc_padc        FWD IMPLICIT_PRECOMP_GEMM   x' and w' padded; y written directly
 *   fd_conv_bwd_data_tc_padc   BWD_DATA ALGO_1             w' padded; dx' computed padded in the
 *                                                          workspace (strides > 1: split by
 *                                                          residue, conv_tc_dgrad.cu), its C
 *                                                          channels copied out
 *   fd_conv_bwd_filter_tc_padc BWD_FILTER ALGO_1, ALGO_3   x' padded; dw' likewise, then copied
 * (the enums whose contract allows a workspace). Zero channels add exact zeros to every sum, so
 * the results are the tensor-core row's bits for the same C-channel problem. alpha and beta
 * stay exact: the tensor-core kernel blends them once into dx' / dw', which hold a copy of
 * dx / dw beforehand when beta != 0, and the copy back moves bits. Any input layout is taken
 * (the copies are the re-layout: NCHW users reach the tensor cores this way too); what the
 * padded problem still cannot do, the tensor-core row's applicable() says. Deterministic.
 *
 * Workspace: x' or dx' (N * spatial * C8 elements), w' or dw' (K * taps * C8), aligned to 256
 * bytes, then the inner row's own workspace (bwd filter's split-K partials, the residue split's
 * sub-filters).
 */
#include <stdio.h>
#include <string.h>

#include "fd_cuda.cuh"

extern "C" {
int fd_conv_fwd_tc_igemm_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);
int fd_conv_bwd_data_tc_igemm_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);
int fd_conv_bwd_filter_tc_igemm_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);
size_t fd_conv_bwd_filter_tc_igemm_workspace(const fd_conv_problem_t *p);
cudnnStatus_t fd_conv_fwd_tc_igemm_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
cudnnStatus_t fd_conv_bwd_data_tc_igemm_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
cudnnStatus_t fd_conv_bwd_filter_tc_igemm_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
int fd_conv_bwd_data_tc_strided_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);
size_t fd_conv_bwd_data_tc_strided_workspace(const fd_conv_problem_t *p);
cudnnStatus_t fd_conv_bwd_data_tc_strided_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
}

/* Backward data's inner row: the residue split of src/cuda/conv_tc_dgrad.cu where it takes the
 * padded problem (strides > 1), else the plain tensor-core row. */
static int bwd_data_split(const fd_conv_problem_t *q)
{
    char why[8];
    return fd_conv_bwd_data_tc_strided_applicable(q, why, sizeof why);
}

static int bwd_data_inner_applicable(const fd_conv_problem_t *q, char *why, size_t why_size)
{
    return bwd_data_split(q) || fd_conv_bwd_data_tc_igemm_applicable(q, why, why_size);
}

#define PAD_ALIGN 256

/* Element strides (N or K, C, D, H, W) and extents of one operand, as the copy kernels read it. */
typedef struct {
    int64_t dim[5];
    int64_t src[5]; /* the caller's strides */
    int64_t c8;     /* channels of the packed copy */
} pad_shape_t;

static int64_t round8(int64_t c)
{
    return (c + 7) / 8 * 8;
}

static size_t align_up(size_t b)
{
    return (b + PAD_ALIGN - 1) / PAD_ALIGN * PAD_ALIGN;
}

/* The padded problem: C8 channels, x (or dx) packed NHWC, the filter packed KRSC. */
static fd_conv_problem_t padded(const fd_conv_problem_t *p)
{
    fd_conv_problem_t q = *p;
    q.c = round8(p->c);
    int64_t s = q.c;
    q.xs[1] = 1;
    for (int d = FD_CONV_SPATIAL_MAX - 1; d >= 0; d--) {
        q.xs[2 + d] = s;
        s *= p->in[d];
    }
    q.xs[0] = s;
    s = q.c;
    q.ws[1] = 1;
    for (int d = FD_CONV_SPATIAL_MAX - 1; d >= 0; d--) {
        q.ws[2 + d] = s;
        s *= p->flt[d];
    }
    q.ws[0] = s;
    q.wformat = CUDNN_TENSOR_NHWC;
    return q;
}

static pad_shape_t act_shape(const fd_conv_problem_t *p)
{
    pad_shape_t s;
    s.dim[0] = p->n, s.dim[1] = p->c;
    for (int d = 0; d < 3; d++)
        s.dim[2 + d] = p->in[d];
    memcpy(s.src, p->xs, sizeof s.src);
    s.c8 = round8(p->c);
    return s;
}

static pad_shape_t flt_shape(const fd_conv_problem_t *p)
{
    pad_shape_t s;
    s.dim[0] = p->k, s.dim[1] = p->c;
    for (int d = 0; d < 3; d++)
        s.dim[2 + d] = p->flt[d];
    memcpy(s.src, p->ws, sizeof s.src);
    s.c8 = round8(p->c);
    return s;
}

static int64_t packed_count(const pad_shape_t *s)
{
    return s->dim[0] * s->dim[2] * s->dim[3] * s->dim[4] * s->c8;
}

/* Pixel i of the packed copy: its (n, d, h, w) as an offset in the caller's layout. */
static __device__ __forceinline__ int64_t pixel_offset(const pad_shape_t &s, int64_t i)
{
    const int64_t w = i % s.dim[4];
    i /= s.dim[4];
    const int64_t h = i % s.dim[3];
    i /= s.dim[3];
    const int64_t d = i % s.dim[2];
    return (i / s.dim[2]) * s.src[0] + d * s.src[2] + h * s.src[3] + w * s.src[4];
}

/* dst (packed, c8 channels innermost) <- src (the caller's strides); channels >= C are zero.
 * One thread per pixel: its c8 elements are one contiguous run of the copy, and neighbouring
 * threads write neighbouring runs (coalesced, where the bytes are). pad_out: dst (the caller's
 * strides) <- the first C channels of src (packed), a copy of bits. Stamped per element width
 * (E: uint16_t for HALF / BFLOAT16, uint32_t for FLOAT; STYLE.md: no templates over types). */
#define PAD_KERNELS_OF(E, SUFFIX)                                                              \
    static __global__ void pad_in_##SUFFIX(pad_shape_t s, const E *__restrict__ src,           \
                                           E *__restrict__ dst)                                \
    {                                                                                          \
        const int64_t pixels = s.dim[0] * s.dim[2] * s.dim[3] * s.dim[4];                      \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < pixels;           \
             i += (int64_t)gridDim.x * blockDim.x) {                                           \
            const E *from = src + pixel_offset(s, i);                                          \
            E *to = dst + i * s.c8;                                                            \
            for (int64_t c = 0; c < s.c8; c++)                                                 \
                to[c] = c < s.dim[1] ? from[c * s.src[1]] : (E)0;                              \
        }                                                                                      \
    }                                                                                          \
    static __global__ void pad_out_##SUFFIX(pad_shape_t s, const E *__restrict__ src,          \
                                            E *__restrict__ dst)                               \
    {                                                                                          \
        const int64_t pixels = s.dim[0] * s.dim[2] * s.dim[3] * s.dim[4];                      \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < pixels;           \
             i += (int64_t)gridDim.x * blockDim.x) {                                           \
            const E *from = src + i * s.c8;                                                    \
            E *to = dst + pixel_offset(s, i);                                                  \
            for (int64_t c = 0; c < s.dim[1]; c++)                                             \
                to[c * s.src[1]] = from[c];                                                    \
        }                                                                                      \
    }
PAD_KERNELS_OF(uint16_t, b16)
PAD_KERNELS_OF(uint32_t, b32)

/* Launches pad_in (in = 1) or pad_out on elements of esz bytes (2: HALF/BFLOAT16, 4: FLOAT). */
static cudnnStatus_t copy(const pad_shape_t &s, const void *src, void *dst, size_t esz, int in,
                          cudaStream_t stream)
{
    const unsigned blocks = fd_cuda_blocks(packed_count(&s) / s.c8, FD_CUDA_BLOCK);
    if (esz == 2 && in)
        pad_in_b16<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(s, (const uint16_t *)src, (uint16_t *)dst);
    else if (esz == 2)
        pad_out_b16<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(s, (const uint16_t *)src, (uint16_t *)dst);
    else if (in)
        pad_in_b32<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(s, (const uint32_t *)src, (uint32_t *)dst);
    else
        pad_out_b32<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(s, (const uint32_t *)src, (uint32_t *)dst);
    FD_CUDA_LAUNCHED("%s of %lld x %lld channels (stream %p)", in ? "channel padding" : "copy-out",
                     (long long)(packed_count(&s) / s.c8), (long long)s.dim[1], (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}

/* What the three rows share: C not a multiple of 8 (else the tensor-core row itself serves the
 * problem), one group, 2- or 4-byte elements, and the padded problem taken by `inner`. */
static int padc_applicable(const fd_conv_problem_t *p, int (*inner)(const fd_conv_problem_t *, char *, size_t),
                           char *why, size_t why_size)
{
    if (p->c % 8 == 0) {
        snprintf(why, why_size, "C = %lld is a multiple of 8: the tensor-core row itself takes it",
                 (long long)p->c);
        return 0;
    }
    if (p->groups != 1) {
        snprintf(why, why_size, "%lld groups; channel padding serves one", (long long)p->groups);
        return 0;
    }
    const size_t esz = fd_dtype_size(p->xdt);
    if (esz != 2 && esz != 4) {
        snprintf(why, why_size, "%s data; the tensor-core rows take HALF, BFLOAT16 or FLOAT",
                 fd_dtype_name(p->xdt));
        return 0;
    }
    const fd_conv_problem_t q = padded(p);
    char inner_why[400];
    if (!inner(&q, inner_why, sizeof inner_why)) {
        snprintf(why, why_size, "with C padded to %lld: %s", (long long)q.c, inner_why);
        return 0;
    }
    return 1;
}

/* Byte offsets in the workspace: the activation copy, the filter copy, the inner row's part. */
typedef struct {
    size_t act, flt, inner, total;
} pad_ws_t;

static pad_ws_t ws_layout(const fd_conv_problem_t *p)
{
    const fd_conv_problem_t q = padded(p);
    const size_t esz = fd_dtype_size(p->xdt);
    const pad_shape_t a = act_shape(p), f = flt_shape(p);
    pad_ws_t l;
    l.act = 0;
    l.flt = align_up((size_t)packed_count(&a) * esz);
    l.inner = l.flt + align_up((size_t)packed_count(&f) * esz);
    l.total = l.inner + (p->dir == FD_CONV_BWD_FILTER                     ? fd_conv_bwd_filter_tc_igemm_workspace(&q)
                         : p->dir == FD_CONV_BWD_DATA && bwd_data_split(&q) ? fd_conv_bwd_data_tc_strided_workspace(&q)
                                                                            : 0);
    return l;
}

static cudnnStatus_t check_ws(const fd_conv_problem_t *p, const fd_conv_args_t *a, const pad_ws_t &l)
{
    FD_CHECK(a->workspace_size >= l.total && (l.total == 0 || a->workspace != NULL),
             CUDNN_STATUS_BAD_PARAM,
             "workspace of %zu bytes; the channel-padded tensor-core %s needs %zu (C = %lld padded "
             "to %lld)",
             a->workspace_size, p->dir == FD_CONV_FWD ? "forward" : p->dir == FD_CONV_BWD_DATA ? "backward data" : "backward filter",
             l.total, (long long)p->c, (long long)round8(p->c));
    return CUDNN_STATUS_SUCCESS;
}

/* -- forward: y = conv(x', w') -- */

extern "C" int fd_conv_fwd_tc_padc_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return padc_applicable(p, fd_conv_fwd_tc_igemm_applicable, why, why_size);
}

extern "C" size_t fd_conv_fwd_tc_padc_workspace(const fd_conv_problem_t *p)
{
    return ws_layout(p).total;
}

extern "C" cudnnStatus_t fd_conv_fwd_tc_padc_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const pad_ws_t l = ws_layout(p);
    FD_TRY(check_ws(p, a, l));
    const size_t esz = fd_dtype_size(p->xdt);
    char *ws = (char *)a->workspace;
    cudaStream_t s = a->handle->stream;
    FD_TRY(copy(act_shape(p), a->x, ws + l.act, esz, 1, s));
    FD_TRY(copy(flt_shape(p), a->w, ws + l.flt, esz, 1, s));
    const fd_conv_problem_t q = padded(p);
    fd_conv_args_t b = *a;
    b.x = ws + l.act, b.w = ws + l.flt;
    b.workspace = ws + l.inner, b.workspace_size = a->workspace_size - l.inner;
    return fd_conv_fwd_tc_igemm_run(&q, &b);
}

/* -- backward data: dx' = conv_bwd(dy, w') blended with a copy of dx, then its C channels -- */

extern "C" int fd_conv_bwd_data_tc_padc_applicable(const fd_conv_problem_t *p, char *why,
                                                   size_t why_size)
{
    return padc_applicable(p, bwd_data_inner_applicable, why, why_size);
}

extern "C" size_t fd_conv_bwd_data_tc_padc_workspace(const fd_conv_problem_t *p)
{
    return ws_layout(p).total;
}

extern "C" cudnnStatus_t fd_conv_bwd_data_tc_padc_run(const fd_conv_problem_t *p,
                                                      const fd_conv_args_t *a)
{
    const pad_ws_t l = ws_layout(p);
    FD_TRY(check_ws(p, a, l));
    const size_t esz = fd_dtype_size(p->xdt);
    char *ws = (char *)a->workspace;
    cudaStream_t s = a->handle->stream;
    const pad_shape_t xa = act_shape(p);
    if (a->beta != 0.0) /* the blend reads dx: give it dx's values */
        FD_TRY(copy(xa, a->out, ws + l.act, esz, 1, s));
    FD_TRY(copy(flt_shape(p), a->w, ws + l.flt, esz, 1, s));
    const fd_conv_problem_t q = padded(p);
    fd_conv_args_t b = *a;
    b.w = ws + l.flt, b.out = ws + l.act;
    b.workspace = ws + l.inner, b.workspace_size = a->workspace_size - l.inner;
    FD_TRY(bwd_data_split(&q) ? fd_conv_bwd_data_tc_strided_run(&q, &b)
                              : fd_conv_bwd_data_tc_igemm_run(&q, &b));
    return copy(xa, ws + l.act, a->out, esz, 0, s);
}

/* -- backward filter: dw' = conv_bwd_filter(x', dy) blended with a copy of dw, then C -- */

extern "C" int fd_conv_bwd_filter_tc_padc_applicable(const fd_conv_problem_t *p, char *why,
                                                     size_t why_size)
{
    return padc_applicable(p, fd_conv_bwd_filter_tc_igemm_applicable, why, why_size);
}

extern "C" size_t fd_conv_bwd_filter_tc_padc_workspace(const fd_conv_problem_t *p)
{
    return ws_layout(p).total;
}

extern "C" cudnnStatus_t fd_conv_bwd_filter_tc_padc_run(const fd_conv_problem_t *p,
                                                        const fd_conv_args_t *a)
{
    const pad_ws_t l = ws_layout(p);
    FD_TRY(check_ws(p, a, l));
    const size_t esz = fd_dtype_size(p->xdt);
    char *ws = (char *)a->workspace;
    cudaStream_t s = a->handle->stream;
    const pad_shape_t fs = flt_shape(p);
    FD_TRY(copy(act_shape(p), a->x, ws + l.act, esz, 1, s));
    if (a->beta != 0.0)
        FD_TRY(copy(fs, a->out, ws + l.flt, esz, 1, s));
    const fd_conv_problem_t q = padded(p);
    fd_conv_args_t b = *a;
    b.x = ws + l.act, b.out = ws + l.flt;
    b.workspace = ws + l.inner, b.workspace_size = a->workspace_size - l.inner;
    FD_TRY(fd_conv_bwd_filter_tc_igemm_run(&q, &b));
    return copy(fs, ws + l.flt, a->out, esz, 0, s);
}
