/* SPDX-License-Identifier: MIT */
/*
 * ctc.cu - CTC loss on the GPU (row fd_ctc_loss_cuda; cudnnCTCLoss and cudnnCTCLoss_v8, both
 * algorithm enums), computing src/core/ctc.h's definition as src/ref/ctc_ref.c does: the alpha
 * and beta recursions in log space and double, with the ref's expressions and orders.
 *
 * Launches, all on the handle's stream:
 *   1. cudnnCTCLoss only: the host label arrays are copied into the workspace
 *      (cudaMemcpyAsync from the caller's host memory, which the runtime stages before it
 *      returns, so the caller may reuse the arrays at once - cuDNN's contract for them).
 *   2. one thread checks every length and label against the problem (fd_ctc_check_labels' rules;
 *      the _v8 arrays are device memory and were never seen by the API) and writes the label
 *      offsets and a verdict. The host cannot learn the verdict without synchronising, so a
 *      _v8 call with bad label contents returns SUCCESS and writes nothing (the ref backends
 *      return BAD_PARAM there, also writing nothing).
 *   3. one block per sample: log y (a row per thread, in the ref's order), alpha for t = 0 ..
 *      tn - 1 (a step per barrier), the cost, then beta from tn - 1 down in two rolling rows with
 *      the gradient of each step: thread k sums the occupancy of symbol k over the label
 *      positions in increasing order, as the ref. Deterministic.
 * Workspace: the int area (verdict, offsets, lengths, labels: 1 + 3 N + N max_label ints, padded
 * to 16 bytes), then per sample log y (T x A), alpha (T x S) and two beta rows (S), S = 2
 * max_label + 1, in doubles. FLOAT, DOUBLE, HALF, BFLOAT16 probs; any strides.
 */
#include <stdio.h>

#include "misc_dev.cuh"
extern "C" {
#include "../core/ctc.h"
}

/* ---- workspace layout ------------------------------------------------------------------------ */

typedef struct {
    size_t ints_bytes;       /* the int area, padded */
    int64_t per_sample;      /* doubles per sample */
    int64_t off_offsets;     /* int index of offsets[N] (verdict at 0) */
    int64_t off_lab_len;     /* label lengths (host copy) */
    int64_t off_in_len;      /* input lengths (host copy) */
    int64_t off_labels;      /* labels (host copy) */
} ctc_layout_t;

static ctc_layout_t layout(const fd_ctc_problem_t *p)
{
    ctc_layout_t l;
    const int64_t s = 2 * (int64_t)p->max_label + 1;
    l.off_offsets = 1;
    l.off_lab_len = 1 + p->n;
    l.off_in_len = 1 + 2 * p->n;
    l.off_labels = 1 + 3 * p->n;
    const int64_t ints = l.off_labels + p->n * (int64_t)p->max_label;
    l.ints_bytes = ((size_t)ints * sizeof(int) + 15) / 16 * 16;
    l.per_sample = p->t * p->a + p->t * s + 2 * s;
    return l;
}

/* ---- kernels --------------------------------------------------------------------------------- */

static __device__ __forceinline__ double lse2(double a, double b) /* log(e^a + e^b) */
{
    if (a == -CUDART_INF)
        return b;
    if (b == -CUDART_INF)
        return a;
    const double m = a > b ? a : b;
    return m + log1p(exp(-fabs(a - b)));
}

/* The lengths and labels against the problem; offsets of each sample's labels. ws[0] = 1 when
 * all is well, else 0 (and nothing will be written). */
static __global__ void ctc_check(const fd_ctc_problem_t p, const int *labels, const int *lab_len,
                                 const int *in_len, int *ws, int64_t off_offsets)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    int ok = 1;
    int64_t off = 0;
    for (int64_t n = 0; n < p.n; n++) {
        ws[off_offsets + n] = (int)off;
        if (in_len[n] < 1 || in_len[n] > p.t || lab_len[n] < 0 || lab_len[n] > p.max_label) {
            ok = 0;
            break;
        }
        for (int i = 0; i < lab_len[n]; i++, off++)
            if (labels[off] < 1 || labels[off] >= p.a)
                ok = 0;
        if (!ok)
            break;
    }
    ws[0] = ok;
}

static __device__ __forceinline__ int ext_label(const int *lab, int64_t s)
{
    return (s & 1) ? lab[s >> 1] : 0;
}

static __global__ void ctc_loss(const fd_ctc_problem_t p, const void *probs, const int *labels,
                                const int *lab_len, const int *in_len, const int *ws_ints,
                                int64_t off_offsets, double *ws, int64_t per_sample, void *costs,
                                void *grads)
{
    __shared__ int lab[FD_CTC_MAX_LABEL];
    __shared__ double logp_s;
    if (ws_ints[0] != 1)
        return; /* bad label contents: nothing is written */
    const int tid = threadIdx.x, nth = blockDim.x;
    const int64_t a = p.a, S = 2 * (int64_t)p.max_label + 1;
    for (int64_t n = blockIdx.x; n < p.n; n += gridDim.x) {
        double *lp = ws + n * per_sample, *la = lp + p.t * a, *lb = la + p.t * S;
        const int64_t tn = in_len[n], len = lab_len[n], sc = 2 * len + 1;
        const int *gl = labels + ws_ints[off_offsets + n];
        for (int64_t i = tid; i < len; i += nth)
            lab[i] = gl[i];
        /* log y, one row per thread, in the ref's order */
        for (int64_t t = tid; t < tn; t += nth) {
            double *row = lp + t * a;
            const int64_t base = t * p.ps[0] + n * p.ps[1];
            for (int64_t k = 0; k < a; k++)
                row[k] = fdm_ld(p.dt, probs, base + k * p.ps[2]);
            if (!p.softmax) {
                for (int64_t k = 0; k < a; k++)
                    row[k] = log(row[k]);
                continue;
            }
            double m = row[0];
            for (int64_t k = 1; k < a; k++)
                m = row[k] > m ? row[k] : m;
            double sum = 0.0;
            for (int64_t k = 0; k < a; k++)
                sum += exp(row[k] - m);
            const double lse = m + log(sum);
            for (int64_t k = 0; k < a; k++)
                row[k] -= lse;
        }
        __syncthreads();
        /* alpha */
        for (int64_t s = tid; s < sc; s += nth)
            la[s] = s < 2 ? lp[ext_label(lab, s)] : -CUDART_INF;
        __syncthreads();
        for (int64_t t = 1; t < tn; t++) {
            const double *prev = la + (t - 1) * sc;
            double *cur = la + t * sc;
            for (int64_t s = tid; s < sc; s += nth) {
                const int l = ext_label(lab, s);
                double v = prev[s];
                if (s >= 1)
                    v = lse2(v, prev[s - 1]);
                if (s >= 2 && l != 0 && l != ext_label(lab, s - 2))
                    v = lse2(v, prev[s - 2]);
                cur[s] = lp[t * a + l] + v;
            }
            __syncthreads();
        }
        if (tid == 0) {
            const double *end = la + (tn - 1) * sc;
            const double logp = sc >= 2 ? lse2(end[sc - 1], end[sc - 2]) : end[sc - 1];
            logp_s = logp;
            fdm_st(p.dt, costs, n, -logp);
        }
        __syncthreads();
        const double logp = logp_s;
        if (p.has_grad) {
            if (logp == -CUDART_INF) { /* cannot be aligned: zero or leave the gradient */
                if (p.zero_oob)
                    for (int64_t e = tid; e < p.t * a; e += nth)
                        fdm_st(p.dt, grads, (e / a) * p.gs[0] + n * p.gs[1] + (e % a) * p.gs[2], 0.0);
            } else {
                for (int64_t t = tn - 1; t >= 0; t--) {
                    double *cur = lb + (t & 1) * S;
                    if (t == tn - 1) {
                        for (int64_t s = tid; s < sc; s += nth)
                            cur[s] = s >= sc - 2 ? 0.0 : -CUDART_INF;
                    } else {
                        const double *next = lb + ((t + 1) & 1) * S, *lpn = lp + (t + 1) * a;
                        for (int64_t s = tid; s < sc; s += nth) {
                            const int l = ext_label(lab, s);
                            double v = lpn[l] + next[s];
                            if (s + 1 < sc)
                                v = lse2(v, lpn[ext_label(lab, s + 1)] + next[s + 1]);
                            if (s + 2 < sc) {
                                const int l2 = ext_label(lab, s + 2);
                                if (l2 != 0 && l2 != l)
                                    v = lse2(v, lpn[l2] + next[s + 2]);
                            }
                            cur[s] = v;
                        }
                    }
                    __syncthreads();
                    const double *at = la + t * sc;
                    for (int64_t k = tid; k < a; k += nth) {
                        double occ = -CUDART_INF;
                        if (k == 0) {
                            for (int64_t s = 0; s < sc; s += 2)
                                occ = lse2(occ, at[s] + cur[s]);
                        } else {
                            for (int64_t j = 0; j < len; j++)
                                if (lab[j] == k)
                                    occ = lse2(occ, at[2 * j + 1] + cur[2 * j + 1]);
                        }
                        const double y = p.softmax ? exp(lp[t * a + k])
                                                   : fdm_ld(p.dt, probs, t * p.ps[0] + n * p.ps[1] + k * p.ps[2]);
                        fdm_st(p.dt, grads, t * p.gs[0] + n * p.gs[1] + k * p.gs[2], y - exp(occ - logp));
                    }
                    __syncthreads(); /* the other beta row is overwritten next */
                }
                for (int64_t e = tn * a + tid; e < p.t * a; e += nth)
                    fdm_st(p.dt, grads, (e / a) * p.gs[0] + n * p.gs[1] + (e % a) * p.gs[2], 0.0);
            }
        }
        __syncthreads(); /* lab[] and logp_s are reused by the next sample */
    }
}

/* ---- row ------------------------------------------------------------------------------------- */

extern "C" int fd_ctc_loss_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_ctc_problem_t *p = (const fd_ctc_problem_t *)problem;
    if (!fdm_host_dtype_ok(p->dt)) {
        snprintf(why, why_size, "%s probs; the CTC kernel takes FLOAT, DOUBLE, HALF and BFLOAT16",
                 fd_dtype_name(p->dt));
        return 0;
    }
    if (p->max_label > FD_CTC_MAX_LABEL) {
        snprintf(why, why_size, "labels of up to %d; the CTC kernel keeps at most %d in shared memory",
                 p->max_label, FD_CTC_MAX_LABEL);
        return 0;
    }
    return 1;
}

extern "C" size_t fd_ctc_loss_cuda_workspace(const void *problem)
{
    const fd_ctc_problem_t *p = (const fd_ctc_problem_t *)problem;
    const ctc_layout_t l = layout(p);
    return l.ints_bytes + (size_t)(p->n * l.per_sample) * sizeof(double);
}

extern "C" cudnnStatus_t fd_ctc_loss_cuda_run(const void *problem, const void *args)
{
    const fd_ctc_problem_t *p = (const fd_ctc_problem_t *)problem;
    const fd_ctc_args_t *a = (const fd_ctc_args_t *)args;
    const ctc_layout_t l = layout(p);
    cudaStream_t stream = a->handle->stream;
    int *ints = (int *)a->workspace;
    double *dbl = (double *)((char *)a->workspace + l.ints_bytes);
    const int *labels = a->labels, *lab_len = a->label_lengths, *in_len = a->input_lengths;
    if (a->labels_on_host) { /* checked by the API: lengths within max_label */
        int64_t total = 0;
        for (int64_t n = 0; n < p->n; n++)
            total += a->label_lengths[n];
        FD_CUDA_CHECK(cudaMemcpyAsync(ints + l.off_lab_len, a->label_lengths, (size_t)p->n * sizeof(int),
                                      cudaMemcpyHostToDevice, stream),
                      "copying %lld label lengths to the workspace", (long long)p->n);
        FD_CUDA_CHECK(cudaMemcpyAsync(ints + l.off_in_len, a->input_lengths, (size_t)p->n * sizeof(int),
                                      cudaMemcpyHostToDevice, stream),
                      "copying %lld input lengths to the workspace", (long long)p->n);
        if (total > 0)
            FD_CUDA_CHECK(cudaMemcpyAsync(ints + l.off_labels, a->labels, (size_t)total * sizeof(int),
                                          cudaMemcpyHostToDevice, stream),
                          "copying %lld labels to the workspace", (long long)total);
        labels = ints + l.off_labels, lab_len = ints + l.off_lab_len, in_len = ints + l.off_in_len;
    }
    ctc_check<<<1, 1, 0, stream>>>(*p, labels, lab_len, in_len, ints, l.off_offsets);
    FD_CUDA_LAUNCHED("ctc_check (N %lld, stream %p)", (long long)p->n, (void *)stream);
    const unsigned blocks = fd_cuda_blocks(p->n, 1); /* one block per sample */
    ctc_loss<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(*p, a->probs, labels, lab_len, in_len, ints,
                                                   l.off_offsets, dbl, l.per_sample, a->costs,
                                                   p->has_grad ? a->grads : NULL);
    FD_CUDA_LAUNCHED("ctc_loss on %s probs (%u blocks, stream %p)", fd_dtype_name(p->dt), blocks,
                     (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}
