/* SPDX-License-Identifier: MIT */
/*
 * dropout.cu - dropout on the GPU: rows fd_dropout_init_cuda (cudnnSetDropoutDescriptor: the
 * states header in device memory), fd_dropout_fwd_cuda and fd_dropout_bwd_cuda, drawing exactly
 * the ref backend's mask (docs/dropout.md, src/ref/dropout_ref.c): Philox4x32-10 keyed by the
 * seed, counted by (element block, call), element i dropped iff its lane's word < threshold.
 *
 * One thread per Philox block of four canonical indices (row-major over each tensor's own
 * dims, so x and y pair by canonical index whatever their shapes and strides). The seed and the
 * call counter are read from the states buffer on the device; a one-thread kernel queued after
 * the forward kernel advances the counter, so every block of the forward call has used the old
 * value (stream order, no synchronisation). The states buffer and the reserve are touched
 * bytewise, so no alignment is assumed. Values: x * scale in double (exact), rounded once, as
 * the ref does; dropped elements are +0. Unlike the ref, an uninitialised states buffer cannot
 * be detected without a synchronisation and is not rejected. Deterministic; no workspace.
 */
#include <stdio.h>

#include "strided.cuh"

extern "C" {
#include "../core/dropout.h"
}

/* Row-major view of a tensor with packed runs merged: canonical index -> element offset. */
typedef struct {
    int nd;
    int64_t dim[FD_DIM_MAX], st[FD_DIM_MAX];
} dl_view_t;

static void dl_view(dl_view_t *v, const struct cudnnTensorStruct *t)
{
    v->nd = 0;
    for (int i = 0; i < t->nb_dims; i++) {
        if (t->dim[i] == 1)
            continue;
        if (v->nd > 0 && v->st[v->nd - 1] == (int64_t)t->stride[i] * t->dim[i]) {
            v->dim[v->nd - 1] *= t->dim[i];
            v->st[v->nd - 1] = t->stride[i];
            continue;
        }
        v->dim[v->nd] = t->dim[i];
        v->st[v->nd] = t->stride[i];
        v->nd++;
    }
    if (v->nd == 0) {
        v->nd = 1;
        v->dim[0] = 1;
        v->st[0] = 0;
    }
}

static __device__ __forceinline__ int64_t dl_offset(const dl_view_t &v, int64_t i)
{
    uint32_t r = (uint32_t)i;
    int64_t off = 0;
    for (int d = v.nd - 1; d > 0; d--) {
        const uint32_t n = (uint32_t)v.dim[d], q = r / n;
        off += (int64_t)(r - q * n) * v.st[d];
        r = q;
    }
    return off + (int64_t)r * v.st[0];
}

static __device__ __forceinline__ uint64_t dl_word(const unsigned char *states, int w)
{
    uint64_t v = 0;
    for (int b = 0; b < 8; b++)
        v |= (uint64_t)states[8 * w + b] << (8 * b);
    return v;
}

/* Philox4x32-10 with Random123's round function and key schedule (as fd_philox4x32_10). */
static __device__ __forceinline__ void dl_philox(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                                                 uint32_t k0, uint32_t k1, uint32_t out[4])
{
#pragma unroll
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const uint32_t hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
        const uint32_t hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
        const uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
        c0 = n0, c1 = n1, c2 = n2, c3 = n3;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

static __global__ void dropout_init_kernel(unsigned char *states, uint64_t seed)
{
    const int b = threadIdx.x;
    if (b >= FD_DROPOUT_STATES_SIZE)
        return;
    const int w = b / 8;
    uint64_t v = 0;
    if (w == FD_DROPOUT_WORD_MAGIC)
        v = FD_DROPOUT_STATES_MAGIC;
    else if (w == FD_DROPOUT_WORD_SEED)
        v = seed;
    else if (w == FD_DROPOUT_WORD_VERSION)
        v = FD_DROPOUT_STATES_VERSION; /* calls and the reserved words: 0 */
    states[b] = (unsigned char)(v >> (8 * (b % 8)));
}

static __global__ void dropout_fwd_kernel(const dl_view_t vin, const dl_view_t vout, int64_t count,
                                          cudnnDataType_t dt, const unsigned char *states,
                                          uint64_t threshold, double scale, const void *in, void *out,
                                          unsigned char *mask)
{
    const uint64_t seed = dl_word(states, FD_DROPOUT_WORD_SEED);
    const uint64_t call = dl_word(states, FD_DROPOUT_WORD_CALLS);
    const int64_t blocks = (count + 3) / 4;
    SD_GRID_LOOP(blk, blocks)
    {
        uint32_t r[4];
        dl_philox((uint32_t)blk, (uint32_t)((uint64_t)blk >> 32), (uint32_t)call,
                  (uint32_t)(call >> 32), (uint32_t)seed, (uint32_t)(seed >> 32), r);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t i = blk * 4 + lane;
            if (i >= count)
                break;
            const int keep = (uint64_t)r[lane] >= threshold;
            const double v = keep ? sd_ld_dt(dt, in, dl_offset(vin, i)) * scale : 0.0;
            sd_st_dt(dt, out, dl_offset(vout, i), v);
            mask[i] = (unsigned char)keep;
        }
    }
}

/* After the forward kernel in stream order: calls += 1. */
static __global__ void dropout_advance_kernel(unsigned char *states)
{
    const uint64_t calls = dl_word(states, FD_DROPOUT_WORD_CALLS) + 1;
    for (int b = 0; b < 8; b++)
        states[8 * FD_DROPOUT_WORD_CALLS + b] = (unsigned char)(calls >> (8 * b));
}

static __global__ void dropout_bwd_kernel(const dl_view_t vin, const dl_view_t vout, int64_t count,
                                          cudnnDataType_t dt, double scale, const void *in, void *out,
                                          const unsigned char *mask)
{
    SD_GRID_LOOP(i, count)
    {
        const double v = mask[i] ? sd_ld_dt(dt, in, dl_offset(vin, i)) * scale : 0.0;
        sd_st_dt(dt, out, dl_offset(vout, i), v);
    }
}

/* ---- rows (src/impls.def) ------------------------------------------------------------------ */

static int dropout_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_dropout_problem_t *p = (const fd_dropout_problem_t *)problem;
    if (p->kind == FD_DROPOUT_INIT)
        return 1;
    const cudnnDataType_t dt = p->in.dtype;
    if ((dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_DOUBLE && dt != CUDNN_DATA_HALF &&
         dt != CUDNN_DATA_BFLOAT16) ||
        p->out.dtype != dt) {
        snprintf(why, why_size, "in/out are %s/%s; the dropout kernels take FLOAT, DOUBLE, HALF, "
                 "BFLOAT16 for both", fd_dtype_name(dt), fd_dtype_name(p->out.dtype));
        return 0;
    }
    return 1;
}

extern "C" int fd_dropout_init_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return dropout_applicable(problem, why, why_size);
}
extern "C" size_t fd_dropout_init_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_dropout_init_cuda_run(const void *problem, const void *args)
{
    (void)problem;
    const fd_dropout_args_t *a = (const fd_dropout_args_t *)args;
    cudaStream_t st = a->handle->stream;
    dropout_init_kernel<<<1, FD_DROPOUT_STATES_SIZE, 0, st>>>((unsigned char *)a->states, a->seed);
    FD_CUDA_LAUNCHED("dropout_init_kernel (stream %p)", (void *)st);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_dropout_fwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return dropout_applicable(problem, why, why_size);
}
extern "C" size_t fd_dropout_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_dropout_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_dropout_problem_t *p = (const fd_dropout_problem_t *)problem;
    const fd_dropout_args_t *a = (const fd_dropout_args_t *)args;
    dl_view_t vin, vout;
    dl_view(&vin, &p->in);
    dl_view(&vout, &p->out);
    cudaStream_t st = a->handle->stream;
    const unsigned blocks = fd_cuda_blocks((p->count + 3) / 4, FD_CUDA_BLOCK);
    dropout_fwd_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(
        vin, vout, p->count, p->in.dtype, (const unsigned char *)a->states, p->threshold, p->scale,
        a->in, a->out, (unsigned char *)a->reserve);
    FD_CUDA_LAUNCHED("dropout_fwd_kernel (%u blocks, stream %p)", blocks, (void *)st);
    dropout_advance_kernel<<<1, 1, 0, st>>>((unsigned char *)a->states);
    FD_CUDA_LAUNCHED("dropout_advance_kernel (stream %p)", (void *)st);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_dropout_bwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return dropout_applicable(problem, why, why_size);
}
extern "C" size_t fd_dropout_bwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_dropout_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_dropout_problem_t *p = (const fd_dropout_problem_t *)problem;
    const fd_dropout_args_t *a = (const fd_dropout_args_t *)args;
    dl_view_t vin, vout;
    dl_view(&vin, &p->in);
    dl_view(&vout, &p->out);
    cudaStream_t st = a->handle->stream;
    const unsigned blocks = fd_cuda_blocks(p->count, FD_CUDA_BLOCK);
    dropout_bwd_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(vin, vout, p->count, p->in.dtype, p->scale,
                                                         a->in, a->out,
                                                         (const unsigned char *)a->reserve);
    FD_CUDA_LAUNCHED("dropout_bwd_kernel (%u blocks, stream %p)", blocks, (void *)st);
    return CUDNN_STATUS_SUCCESS;
}
