/* SPDX-License-Identifier: MIT */
/*
 * ctc.h - the CTC loss descriptor behind cudnnCTCLossDescriptor_t and the flat problem that
 * cudnnCTCLoss / cudnnCTCLoss_v8 hand to the implementations (FD_OP_CTC_LOSS).
 *
 * What is computed (cuDNN's documented semantics; label 0 is the blank):
 *   - probs is T x N x A (time, batch, alphabet). NORMALIZATION_NONE: probs holds softmax
 *     probabilities y; SOFTMAX: probs holds activations u and y = softmax over A of u.
 *   - costs[n] = -ln P(l_n | y) over the first inputLengths[n] steps (the sum over every path
 *     that collapses - merge repeats, drop blanks - to the label sequence l_n).
 *   - gradients (when not NULL), in BOTH modes with respect to the pre-softmax activations:
 *     g[t, n, k] = y[t, n, k] - (1/P) sum over the label positions s with l'_s = k of
 *     alpha_t(s) beta_t(s) for t < inputLengths[n], and 0 for t >= inputLengths[n].
 *   - a sample with P = 0 (labels that cannot fit: inputLength < L + repeats, or zero
 *     probabilities) costs +inf; its gradient is all zeros with CUDNN_CTC_ZERO_OOB_GRADIENTS
 *     (= CUDNN_NOT_PROPAGATE_NAN of the v7/v8 setters) and left untouched with
 *     CUDNN_CTC_SKIP_OOB_GRADIENTS (= CUDNN_PROPAGATE_NAN).
 *   - DETERMINISTIC and NON_DETERMINISTIC name the same computation on the host backends.
 */
#ifndef FD_CORE_CTC_H_
#define FD_CORE_CTC_H_

#include "fd.h"

#define FD_MAGIC_CTC 0x4c444e46u /* "FNDL" */
#define FD_CTC_MAX_LABEL 256     /* cuDNN's documented limit on a label sequence */

struct cudnnCTCLossStruct {
    uint32_t magic;
    int is_set;
    cudnnDataType_t comp;
    cudnnLossNormalizationMode_t norm;
    cudnnCTCGradMode_t grad_mode;
    int max_label; /* maxLabelLength of the v8/v9 setters; FD_CTC_MAX_LABEL otherwise */
};

typedef struct fd_ctc_problem {
    cudnnDataType_t dt;   /* probs, gradients and costs */
    cudnnDataType_t comp; /* descriptor's compute type (FLOAT or DOUBLE; math is in double) */
    int64_t t, n, a;      /* time steps, batch, alphabet (blank included) */
    int64_t ps[3], gs[3]; /* probs and gradients strides (T, N, A order) */
    int softmax;          /* CUDNN_LOSS_NORMALIZATION_SOFTMAX */
    int zero_oob;         /* CUDNN_CTC_ZERO_OOB_GRADIENTS */
    int has_grad;         /* gradients requested */
    int max_label;        /* longest label the workspace is sized for (0 .. 256) */
    int algo;
} fd_ctc_problem_t;

/* labels: the N label sequences concatenated; labels/lengths are host arrays for cudnnCTCLoss
 * and device arrays for cudnnCTCLoss_v8 (the same memory on the ref and cpu backends). */
typedef struct fd_ctc_args {
    const void *probs;
    const int *labels, *label_lengths, *input_lengths;
    void *costs; /* N elements of dt, packed */
    void *grads; /* NULL when has_grad is 0 */
    void *workspace;
    size_t workspace_size;
    cudnnHandle_t handle; /* its stream, on cuda */
    int labels_on_host;   /* cudnnCTCLoss: the three int arrays are host memory on every backend */
} fd_ctc_args_t;

/* The label contents against the problem: 1 <= inputLengths[n] <= T,
 * 0 <= labelLengths[n] <= max_label, every label in [1, A - 1]. BAD_PARAM otherwise. */
static inline cudnnStatus_t fd_ctc_check_labels(const fd_ctc_problem_t *p, const int *labels,
                                                const int *label_lengths, const int *input_lengths)
{
    int64_t off = 0;
    for (int64_t n = 0; n < p->n; n++) {
        FD_CHECK(input_lengths[n] >= 1 && input_lengths[n] <= p->t, CUDNN_STATUS_BAD_PARAM,
                 "inputLengths[%lld] is %d; it must be in [1, T = %lld]", (long long)n,
                 input_lengths[n], (long long)p->t);
        FD_CHECK(label_lengths[n] >= 0 && label_lengths[n] <= p->max_label, CUDNN_STATUS_BAD_PARAM,
                 "labelLengths[%lld] is %d; it must be in [0, %d]", (long long)n, label_lengths[n],
                 p->max_label);
        for (int i = 0; i < label_lengths[n]; i++, off++)
            FD_CHECK(
                labels[off] >= 1 && labels[off] < p->a, CUDNN_STATUS_BAD_PARAM,
                "label %d of sample %lld (labels[%lld]) is %d; labels are in [1, A - 1 = %lld] "
                "(0 is the blank)",
                i, (long long)n, (long long)off, labels[off], (long long)(p->a - 1));
    }
    return CUDNN_STATUS_SUCCESS;
}

#endif /* FD_CORE_CTC_H_ */
