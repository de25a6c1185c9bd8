/* SPDX-License-Identifier: MIT */
/*
 * ctc.c - CTC loss: descriptor create/set (7.0, Ex, v8, v9 forms)/get/destroy, workspace-size
 * queries and cudnnCTCLoss / cudnnCTCLoss_v8. What is computed is defined in src/core/ctc.h.
 *
 * Validation (cuDNN documents BAD_PARAM for probs/gradients dims that differ, inputLengths that
 * disagree with T, a short workspace and labels longer than 256; NOT_SUPPORTED for a compute or
 * data type it does not take and an unknown algorithm). Decided here:
 *   - setters: an invalid compType, normMode or gradMode enum and maxLabelLength < 1 are
 *     BAD_PARAM; a rejected set changes nothing. cudnnSetCTCLossDescriptor sets normMode NONE
 *     and the ZERO_OOB gradient mode; the 7.x setters leave maxLabelLength at 256.
 *   - compute: probs must be 3-d T x N x A; gradients (when not NULL) the same dims and type;
 *     inputLengths in [1, T]; labelLengths in [0, 256] (cudnnCTCLoss) or [0, min(256,
 *     maxLabelLength)] (_v8); labels in [1, A - 1]: BAD_PARAM otherwise. FLOAT, DOUBLE, HALF
 *     and BFLOAT16 probs (costs are stored in the same type) with compType FLOAT or DOUBLE are
 *     computed, in double; other types, negative strides and overlapping buffers (no in-place
 *     form) are NOT_SUPPORTED. A workspace shorter than the size query's answer is BAD_PARAM.
 *     Everything is checked before anything is written (for _v8, whose label arrays live in
 *     device memory, the implementation checks their contents before it writes).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/ctc.h"
#include "../core/op.h"

cudnnStatus_t CUDNNWINAPI cudnnCreateCTCLossDescriptor(cudnnCTCLossDescriptor_t *ctcLossDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(ctcLossDesc);
    struct cudnnCTCLossStruct *d = calloc(1, sizeof *d);
    FD_CHECK(d != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a CTC loss descriptor (%zu bytes)", sizeof *d);
    d->magic = FD_MAGIC_CTC;
    d->comp = CUDNN_DATA_FLOAT;
    d->norm = CUDNN_LOSS_NORMALIZATION_NONE;
    d->grad_mode = CUDNN_CTC_ZERO_OOB_GRADIENTS;
    d->max_label = FD_CTC_MAX_LABEL;
    *ctcLossDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc)
{
    FD_API(NULL);
    if (ctcLossDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_CHECK(ctcLossDesc->magic == FD_MAGIC_CTC, CUDNN_STATUS_BAD_PARAM,
             "ctcLossDesc %p is not a live CTC loss descriptor", (void *)ctcLossDesc);
    ctcLossDesc->magic = 0;
    free(ctcLossDesc);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t ctc_live(cudnnCTCLossDescriptor_t d)
{
    FD_CHECK(d != NULL, CUDNN_STATUS_BAD_PARAM, "ctcLossDesc is NULL");
    FD_CHECK(d->magic == FD_MAGIC_CTC, CUDNN_STATUS_BAD_PARAM,
             "ctcLossDesc (%p) is not a live CTC loss descriptor", (void *)d);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t ctc_check(cudnnCTCLossDescriptor_t d)
{
    FD_TRY(ctc_live(d));
    FD_CHECK(d->is_set, CUDNN_STATUS_BAD_PARAM,
             "ctcLossDesc was created but never set (call cudnnSetCTCLossDescriptor* first)");
    return CUDNN_STATUS_SUCCESS;
}

/* Validates everything and, only if all is well, writes the descriptor. */
static cudnnStatus_t ctc_commit(cudnnCTCLossDescriptor_t d, cudnnDataType_t comp,
                                cudnnLossNormalizationMode_t norm, int grad_mode, const char *gname,
                                int max_label)
{
    FD_TRY(ctc_live(d));
    /* cuDNN 9.19 answers NOT_SUPPORTED here (docs/status-codes.md, ctc_set_bad_comp_type) */
    FD_CHECK(fd_dtype_is_valid(comp), CUDNN_STATUS_NOT_SUPPORTED,
             "compType %d is not a cudnnDataType_t value", (int)comp);
    FD_CHECK(norm == CUDNN_LOSS_NORMALIZATION_NONE || norm == CUDNN_LOSS_NORMALIZATION_SOFTMAX,
             CUDNN_STATUS_BAD_PARAM,
             "normMode %d is not CUDNN_LOSS_NORMALIZATION_NONE (0) or _SOFTMAX (1)", (int)norm);
    FD_CHECK(grad_mode == 0 || grad_mode == 1, CUDNN_STATUS_BAD_PARAM, "%s %d is not 0 or 1", gname,
             grad_mode);
    FD_CHECK(max_label >= 1, CUDNN_STATUS_BAD_PARAM, "maxLabelLength is %d; it must be positive",
             max_label);
    d->comp = comp;
    d->norm = norm;
    d->grad_mode = (cudnnCTCGradMode_t)grad_mode;
    d->max_label = max_label;
    d->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

/* CUDNN_NOT_PROPAGATE_NAN (0) zeroes the gradient of a sample that cannot be aligned, as
 * CUDNN_CTC_ZERO_OOB_GRADIENTS (0); CUDNN_PROPAGATE_NAN (1) leaves it, as _SKIP_OOB_ (1). */
_Static_assert((int)CUDNN_NOT_PROPAGATE_NAN == (int)CUDNN_CTC_ZERO_OOB_GRADIENTS &&
                   (int)CUDNN_PROPAGATE_NAN == (int)CUDNN_CTC_SKIP_OOB_GRADIENTS,
               "the v8 and v9 gradient modes share their values");

cudnnStatus_t CUDNNWINAPI cudnnSetCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc,
                                                    cudnnDataType_t compType)
{
    FD_API(NULL);
    return ctc_commit(ctcLossDesc, compType, CUDNN_LOSS_NORMALIZATION_NONE,
                      CUDNN_CTC_ZERO_OOB_GRADIENTS, "gradMode", FD_CTC_MAX_LABEL);
}

cudnnStatus_t CUDNNWINAPI cudnnSetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t ctcLossDesc,
                                                      cudnnDataType_t compType,
                                                      cudnnLossNormalizationMode_t normMode,
                                                      cudnnNanPropagation_t gradMode)
{
    FD_API(NULL);
    return ctc_commit(ctcLossDesc, compType, normMode, (int)gradMode, "gradMode", FD_CTC_MAX_LABEL);
}

cudnnStatus_t CUDNNWINAPI cudnnSetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc,
                                                       cudnnDataType_t compType,
                                                       cudnnLossNormalizationMode_t normMode,
                                                       cudnnNanPropagation_t gradMode,
                                                       int maxLabelLength)
{
    FD_API(NULL);
    return ctc_commit(ctcLossDesc, compType, normMode, (int)gradMode, "gradMode", maxLabelLength);
}

cudnnStatus_t CUDNNWINAPI cudnnSetCTCLossDescriptor_v9(cudnnCTCLossDescriptor_t ctcLossDesc,
                                                       cudnnDataType_t compType,
                                                       cudnnLossNormalizationMode_t normMode,
                                                       cudnnCTCGradMode_t ctcGradMode,
                                                       int maxLabelLength)
{
    FD_API(NULL);
    return ctc_commit(ctcLossDesc, compType, normMode, (int)ctcGradMode, "ctcGradMode",
                      maxLabelLength);
}

cudnnStatus_t CUDNNWINAPI cudnnGetCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc,
                                                    cudnnDataType_t *compType)
{
    FD_API(NULL);
    FD_TRY(ctc_check(ctcLossDesc));
    FD_CHECK_NOT_NULL(compType);
    *compType = ctcLossDesc->comp;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t ctcLossDesc,
                                                      cudnnDataType_t *compType,
                                                      cudnnLossNormalizationMode_t *normMode,
                                                      cudnnNanPropagation_t *gradMode)
{
    FD_API(NULL);
    FD_TRY(ctc_check(ctcLossDesc));
    FD_CHECK(compType && normMode && gradMode, CUDNN_STATUS_BAD_PARAM,
             "an output pointer is NULL (compType %p, normMode %p, gradMode %p)", (void *)compType,
             (void *)normMode, (void *)gradMode);
    *compType = ctcLossDesc->comp;
    *normMode = ctcLossDesc->norm;
    *gradMode = (cudnnNanPropagation_t)ctcLossDesc->grad_mode;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc,
                                                       cudnnDataType_t *compType,
                                                       cudnnLossNormalizationMode_t *normMode,
                                                       cudnnNanPropagation_t *gradMode,
                                                       int *maxLabelLength)
{
    FD_API(NULL);
    FD_TRY(ctc_check(ctcLossDesc));
    FD_CHECK(compType && normMode && gradMode && maxLabelLength, CUDNN_STATUS_BAD_PARAM,
             "an output pointer is NULL (compType %p, normMode %p, gradMode %p, maxLabelLength %p)",
             (void *)compType, (void *)normMode, (void *)gradMode, (void *)maxLabelLength);
    *compType = ctcLossDesc->comp;
    *normMode = ctcLossDesc->norm;
    *gradMode = (cudnnNanPropagation_t)ctcLossDesc->grad_mode;
    *maxLabelLength = ctcLossDesc->max_label;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetCTCLossDescriptor_v9(cudnnCTCLossDescriptor_t ctcLossDesc,
                                                       cudnnDataType_t *compType,
                                                       cudnnLossNormalizationMode_t *normMode,
                                                       cudnnCTCGradMode_t *ctcGradMode,
                                                       int *maxLabelLength)
{
    FD_API(NULL);
    FD_TRY(ctc_check(ctcLossDesc));
    FD_CHECK(compType && normMode && ctcGradMode && maxLabelLength, CUDNN_STATUS_BAD_PARAM,
             "an output pointer is NULL (compType %p, normMode %p, ctcGradMode %p, maxLabelLength "
             "%p)",
             (void *)compType, (void *)normMode, (void *)ctcGradMode, (void *)maxLabelLength);
    *compType = ctcLossDesc->comp;
    *normMode = ctcLossDesc->norm;
    *ctcGradMode = ctcLossDesc->grad_mode;
    *maxLabelLength = ctcLossDesc->max_label;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- problem ------------------------------------------------------------------------------- */

static int dtype_computed(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

/* Descriptor checks shared by the compute calls and the size queries; fills *p except
 * max_label. gradientsDesc is read only when with_grad. */
static cudnnStatus_t problem_init(fd_ctc_problem_t *p, cudnnHandle_t handle,
                                  cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t desc,
                                  cudnnTensorDescriptor_t probsDesc,
                                  cudnnTensorDescriptor_t gradientsDesc, int with_grad)
{
    FD_TRY(fd_handle_check(handle));
    FD_TRY(ctc_check(desc));
    FD_CHECK(algo == CUDNN_CTC_LOSS_ALGO_DETERMINISTIC ||
                 algo == CUDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC,
             CUDNN_STATUS_NOT_SUPPORTED,
             "algo %d is not a cudnnCTCLossAlgo_t value (DETERMINISTIC 0, NON_DETERMINISTIC 1)",
             (int)algo);
    FD_CHECK(desc->comp == CUDNN_DATA_FLOAT || desc->comp == CUDNN_DATA_DOUBLE,
             CUDNN_STATUS_NOT_SUPPORTED,
             "ctcLossDesc compType is %s; FLOAT and DOUBLE are computed",
             fd_dtype_name(desc->comp));
    FD_TRY(fd_tensor_check(probsDesc, "probsDesc"));
    FD_CHECK(probsDesc->nb_dims == 3, CUDNN_STATUS_BAD_PARAM,
             "probsDesc has %d dims; it must be 3-d (T, N, A)", probsDesc->nb_dims);
    FD_CHECK(dtype_computed(probsDesc->dtype), CUDNN_STATUS_NOT_SUPPORTED,
             "CTC loss on %s probs is not implemented (FLOAT, DOUBLE, HALF and BFLOAT16 are)",
             fd_dtype_name(probsDesc->dtype));
    FD_CHECK(!fd_tensor_has_negative_stride(probsDesc), CUDNN_STATUS_NOT_SUPPORTED,
             "probsDesc has a negative stride; CTC loss does not take negative strides");
    if (with_grad) {
        FD_TRY(fd_tensor_check(gradientsDesc, "gradientsDesc"));
        FD_CHECK(gradientsDesc->nb_dims == 3 && gradientsDesc->dim[0] == probsDesc->dim[0] &&
                     gradientsDesc->dim[1] == probsDesc->dim[1] &&
                     gradientsDesc->dim[2] == probsDesc->dim[2],
                 CUDNN_STATUS_BAD_PARAM,
                 "gradientsDesc (%d dims, %dx%dx%d) does not match probsDesc (%dx%dx%d)",
                 gradientsDesc->nb_dims, gradientsDesc->dim[0], gradientsDesc->dim[1],
                 gradientsDesc->dim[2], probsDesc->dim[0], probsDesc->dim[1], probsDesc->dim[2]);
        FD_CHECK(gradientsDesc->dtype == probsDesc->dtype, CUDNN_STATUS_BAD_PARAM,
                 "gradientsDesc is %s but probsDesc is %s", fd_dtype_name(gradientsDesc->dtype),
                 fd_dtype_name(probsDesc->dtype));
        FD_CHECK(!fd_tensor_has_negative_stride(gradientsDesc), CUDNN_STATUS_NOT_SUPPORTED,
                 "gradientsDesc has a negative stride; CTC loss does not take negative strides");
        FD_CHECK(fd_tensor_is_non_overlapping(gradientsDesc), CUDNN_STATUS_BAD_PARAM,
                 "gradientsDesc has overlapping strides; an output may not alias itself");
    }
    memset(p, 0, sizeof *p);
    p->dt = probsDesc->dtype;
    p->comp = desc->comp;
    p->t = probsDesc->dim[0], p->n = probsDesc->dim[1], p->a = probsDesc->dim[2];
    for (int i = 0; i < 3; i++) {
        p->ps[i] = probsDesc->stride[i];
        p->gs[i] = with_grad ? gradientsDesc->stride[i] : 0;
    }
    p->softmax = desc->norm == CUDNN_LOSS_NORMALIZATION_SOFTMAX;
    p->zero_oob = desc->grad_mode == CUDNN_CTC_ZERO_OOB_GRADIENTS;
    p->has_grad = with_grad;
    p->algo = (int)algo;
    return CUDNN_STATUS_SUCCESS;
}

/* cudnnCTCLoss's host labels: lengths within 256 give max_label; then the full content check. */
static cudnnStatus_t host_labels(fd_ctc_problem_t *p, const int *labels, const int *label_lengths,
                                 const int *input_lengths)
{
    FD_CHECK(labels && label_lengths && input_lengths, CUDNN_STATUS_BAD_PARAM,
             "a label array is NULL (labels %p, labelLengths %p, inputLengths %p)", (void *)labels,
             (void *)label_lengths, (void *)input_lengths);
    int max_label = 0;
    for (int64_t n = 0; n < p->n; n++) {
        FD_CHECK(label_lengths[n] >= 0 && label_lengths[n] <= FD_CTC_MAX_LABEL,
                 CUDNN_STATUS_BAD_PARAM, "labelLengths[%lld] is %d; it must be in [0, %d]",
                 (long long)n, label_lengths[n], FD_CTC_MAX_LABEL);
        if (label_lengths[n] > max_label)
            max_label = label_lengths[n];
    }
    p->max_label = max_label;
    return fd_ctc_check_labels(p, labels, label_lengths, input_lengths);
}

static int desc_max_label(cudnnCTCLossDescriptor_t desc)
{
    return desc->max_label < FD_CTC_MAX_LABEL ? desc->max_label : FD_CTC_MAX_LABEL;
}

static cudnnStatus_t select_impl(cudnnHandle_t handle, const fd_ctc_problem_t *p,
                                 const fd_op_impl_t **impl)
{
    char why[512];
    *impl = fd_op_select(FD_OP_CTC_LOSS, handle->backend, p, why, sizeof why);
    FD_CHECK(*impl != NULL, CUDNN_STATUS_NOT_SUPPORTED, "%s: %s", fd_op_name(FD_OP_CTC_LOSS), why);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- workspace ----------------------------------------------------------------------------- */

cudnnStatus_t CUDNNWINAPI cudnnGetCTCLossWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc,
    const cudnnTensorDescriptor_t gradientsDesc, const int *labels, const int *labelLengths,
    const int *inputLengths, cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
    size_t *sizeInBytes)
{
    FD_API(handle);
    FD_CHECK_NOT_NULL(sizeInBytes);
    fd_ctc_problem_t p;
    FD_TRY(problem_init(&p, handle, algo, ctcLossDesc, probsDesc, gradientsDesc,
                        gradientsDesc != NULL));
    FD_TRY(host_labels(&p, labels, labelLengths, inputLengths));
    const fd_op_impl_t *impl;
    FD_TRY(select_impl(handle, &p, &impl));
    *sizeInBytes = impl->workspace(&p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetCTCLossWorkspaceSize_v8(
    cudnnHandle_t handle, cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
    const cudnnTensorDescriptor_t probsDesc, const cudnnTensorDescriptor_t gradientsDesc,
    size_t *sizeInBytes)
{
    FD_API(handle);
    FD_CHECK_NOT_NULL(sizeInBytes);
    fd_ctc_problem_t p;
    FD_TRY(problem_init(&p, handle, algo, ctcLossDesc, probsDesc, gradientsDesc,
                        gradientsDesc != NULL));
    p.max_label = desc_max_label(ctcLossDesc);
    const fd_op_impl_t *impl;
    FD_TRY(select_impl(handle, &p, &impl));
    *sizeInBytes = impl->workspace(&p);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- compute ------------------------------------------------------------------------------- */

/* 1 when the byte ranges [a, a + na) and [b, b + nb) share a byte. */
static int overlaps(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    return a0 < b0 + nb && b0 < a0 + na;
}

/* Workspace size against the implementation, buffers apart, then run. */
static cudnnStatus_t ctc_run(cudnnHandle_t handle, const fd_ctc_problem_t *p,
                             cudnnTensorDescriptor_t probsDesc,
                             cudnnTensorDescriptor_t gradientsDesc, const fd_ctc_args_t *a)
{
    const fd_op_impl_t *impl;
    FD_TRY(select_impl(handle, p, &impl));
    size_t need = impl->workspace(p);
    FD_CHECK(a->workspace_size >= need, CUDNN_STATUS_BAD_PARAM,
             "workSpaceSizeInBytes is %zu but this problem needs %zu (see "
             "cudnnGetCTCLossWorkspaceSize)",
             a->workspace_size, need);
    FD_CHECK(need == 0 || a->workspace != NULL, CUDNN_STATUS_BAD_PARAM,
             "workspace is NULL but this problem needs %zu bytes", need);
    size_t es = fd_dtype_size(p->dt);
    size_t np = (size_t)fd_tensor_extent(probsDesc) * es, nc = (size_t)p->n * es;
    size_t ng = a->grads ? (size_t)fd_tensor_extent(gradientsDesc) * es : 0;
    FD_CHECK(!overlaps(a->costs, nc, a->probs, np), CUDNN_STATUS_NOT_SUPPORTED,
             "costs overlaps probs");
    FD_CHECK(!overlaps(a->costs, nc, a->grads, ng), CUDNN_STATUS_NOT_SUPPORTED,
             "costs overlaps gradients");
    FD_CHECK(!overlaps(a->grads, ng, a->probs, np), CUDNN_STATUS_NOT_SUPPORTED,
             "gradients overlaps probs; CTC loss has no in-place form");
    FD_CHECK(!overlaps(a->workspace, need, a->probs, np) &&
                 !overlaps(a->workspace, need, a->costs, nc) &&
                 !overlaps(a->workspace, need, a->grads, ng),
             CUDNN_STATUS_NOT_SUPPORTED, "the workspace overlaps probs, costs or gradients");
    return impl->run(p, a);
}

cudnnStatus_t CUDNNWINAPI cudnnCTCLoss(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc, const void *probs,
    const int hostLabels[], const int hostLabelLengths[], const int hostInputLengths[], void *costs,
    const cudnnTensorDescriptor_t gradientsDesc, void *gradients, cudnnCTCLossAlgo_t algo,
    cudnnCTCLossDescriptor_t ctcLossDesc, void *workspace, size_t workSpaceSizeInBytes)
{
    FD_API(handle);
    fd_ctc_problem_t p;
    FD_TRY(
        problem_init(&p, handle, algo, ctcLossDesc, probsDesc, gradientsDesc, gradients != NULL));
    FD_CHECK(probs && costs, CUDNN_STATUS_BAD_PARAM, "a data pointer is NULL (probs %p, costs %p)",
             probs, costs);
    FD_TRY(host_labels(&p, hostLabels, hostLabelLengths, hostInputLengths));
    fd_ctc_args_t a = {probs,     hostLabels, hostLabelLengths,     hostInputLengths, costs,
                       gradients, workspace,  workSpaceSizeInBytes, handle,           1};
    return ctc_run(handle, &p, probsDesc, gradientsDesc, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnCTCLoss_v8(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo,
                                          cudnnCTCLossDescriptor_t ctcLossDesc,
                                          const cudnnTensorDescriptor_t probsDesc,
                                          const void *probs, const int labels[],
                                          const int labelLengths[], const int inputLengths[],
                                          void *costs, const cudnnTensorDescriptor_t gradientsDesc,
                                          void *gradients, size_t workSpaceSizeInBytes,
                                          void *workspace)
{
    FD_API(handle);
    fd_ctc_problem_t p;
    FD_TRY(
        problem_init(&p, handle, algo, ctcLossDesc, probsDesc, gradientsDesc, gradients != NULL));
    FD_CHECK(probs && costs, CUDNN_STATUS_BAD_PARAM, "a data pointer is NULL (probs %p, costs %p)",
             probs, costs);
    FD_CHECK(labels && labelLengths && inputLengths, CUDNN_STATUS_BAD_PARAM,
             "a label array is NULL (labels %p, labelLengths %p, inputLengths %p)", (void *)labels,
             (void *)labelLengths, (void *)inputLengths);
    /* The label arrays are device memory: the implementation checks their contents. */
    p.max_label = desc_max_label(ctcLossDesc);
    fd_ctc_args_t a = {probs,     labels,    labelLengths,         inputLengths, costs,
                       gradients, workspace, workSpaceSizeInBytes, handle,       0};
    return ctc_run(handle, &p, probsDesc, gradientsDesc, &a);
}
