/* SPDX-License-Identifier: MIT */
/*
 * reduce.c - reduction descriptors, cudnnGetReductionIndicesSize/WorkspaceSize and
 * cudnnReduceTensor: C = alpha * reduce(A) + beta * C over every dim where C is 1 and A is not.
 *
 * Rules: C has A's rank and each dim of C is A's or 1 (BAD_PARAM otherwise); C equal to A in
 * shape reduces nothing and is computed (each output is its own one-element slice; cuDNN 9.27
 * is reported to answer BAD_PARAM there). Types: A and C among FLOAT, HALF, BFLOAT16 with
 * FLOAT compute, or A, C and compute all DOUBLE; anything else NOT_SUPPORTED. Indices are
 * produced for MIN, MAX and AMAX with FLATTENED_INDICES only, 32-bit only (other widths
 * NOT_SUPPORTED): one uint32 per element of C in row-major order of C's dims, the position of
 * the chosen element in row-major order of the reduced dims, first occurrence on ties; other
 * operators ignore the indices buffer. The reference needs no workspace (size 0).
 */
#include <stdlib.h>

#include "../core/op.h"
#include "../core/tensor_ops.h"

static cudnnStatus_t reduce_live(cudnnReduceTensorDescriptor_t d, const char *name)
{
    FD_CHECK(d != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(d->magic == FD_MAGIC_REDUCE_TENSOR, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live reduce-tensor descriptor", name, (void *)d);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t reduce_set(cudnnReduceTensorDescriptor_t d, const char *name)
{
    FD_TRY(reduce_live(d, name));
    FD_CHECK(d->is_set, CUDNN_STATUS_BAD_PARAM,
             "%s was created but never set (call cudnnSetReduceTensorDescriptor first)", name);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnCreateReduceTensorDescriptor(cudnnReduceTensorDescriptor_t *reduceTensorDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(reduceTensorDesc);
    struct cudnnReduceTensorStruct *d = calloc(1, sizeof *d);
    FD_CHECK(d != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a reduce-tensor descriptor (%zu bytes)", sizeof *d);
    d->magic = FD_MAGIC_REDUCE_TENSOR;
    *reduceTensorDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnDestroyReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc)
{
    FD_API(NULL);
    if (reduceTensorDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(reduce_live(reduceTensorDesc, "reduceTensorDesc"));
    reduceTensorDesc->magic = 0;
    free(reduceTensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetReduceTensorDescriptor(
    cudnnReduceTensorDescriptor_t reduceTensorDesc, cudnnReduceTensorOp_t reduceTensorOp,
    cudnnDataType_t reduceTensorCompType, cudnnNanPropagation_t reduceTensorNanOpt,
    cudnnReduceTensorIndices_t reduceTensorIndices, cudnnIndicesType_t reduceTensorIndicesType)
{
    FD_API(NULL);
    FD_TRY(reduce_live(reduceTensorDesc, "reduceTensorDesc"));
    FD_CHECK((int)reduceTensorOp >= CUDNN_REDUCE_TENSOR_ADD &&
                 (int)reduceTensorOp <= CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS,
             CUDNN_STATUS_BAD_PARAM, "reduceTensorOp %d is not a cudnnReduceTensorOp_t value",
             (int)reduceTensorOp);
    FD_CHECK(fd_dtype_is_valid(reduceTensorCompType), CUDNN_STATUS_BAD_PARAM,
             "reduceTensorCompType %d is not a cudnnDataType_t value", (int)reduceTensorCompType);
    FD_CHECK(reduceTensorNanOpt == CUDNN_NOT_PROPAGATE_NAN ||
                 reduceTensorNanOpt == CUDNN_PROPAGATE_NAN,
             CUDNN_STATUS_BAD_PARAM, "reduceTensorNanOpt %d is not a cudnnNanPropagation_t value",
             (int)reduceTensorNanOpt);
    FD_CHECK(reduceTensorIndices == CUDNN_REDUCE_TENSOR_NO_INDICES ||
                 reduceTensorIndices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES,
             CUDNN_STATUS_BAD_PARAM,
             "reduceTensorIndices %d is not a cudnnReduceTensorIndices_t value",
             (int)reduceTensorIndices);
    FD_CHECK((int)reduceTensorIndicesType >= CUDNN_32BIT_INDICES &&
                 (int)reduceTensorIndicesType <= CUDNN_8BIT_INDICES,
             CUDNN_STATUS_BAD_PARAM, "reduceTensorIndicesType %d is not a cudnnIndicesType_t value",
             (int)reduceTensorIndicesType);
    reduceTensorDesc->op = reduceTensorOp;
    reduceTensorDesc->comp = reduceTensorCompType;
    reduceTensorDesc->nan = reduceTensorNanOpt;
    reduceTensorDesc->indices = reduceTensorIndices;
    reduceTensorDesc->indices_type = reduceTensorIndicesType;
    reduceTensorDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetReduceTensorDescriptor(
    const cudnnReduceTensorDescriptor_t reduceTensorDesc, cudnnReduceTensorOp_t *reduceTensorOp,
    cudnnDataType_t *reduceTensorCompType, cudnnNanPropagation_t *reduceTensorNanOpt,
    cudnnReduceTensorIndices_t *reduceTensorIndices, cudnnIndicesType_t *reduceTensorIndicesType)
{
    FD_API(NULL);
    FD_TRY(reduce_set(reduceTensorDesc, "reduceTensorDesc"));
    FD_CHECK(reduceTensorOp && reduceTensorCompType && reduceTensorNanOpt && reduceTensorIndices &&
                 reduceTensorIndicesType,
             CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    *reduceTensorOp = reduceTensorDesc->op;
    *reduceTensorCompType = reduceTensorDesc->comp;
    *reduceTensorNanOpt = reduceTensorDesc->nan;
    *reduceTensorIndices = reduceTensorDesc->indices;
    *reduceTensorIndicesType = reduceTensorDesc->indices_type;
    return CUDNN_STATUS_SUCCESS;
}

static int wants_indices(const struct cudnnReduceTensorStruct *r)
{
    return r->indices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES &&
           (r->op == CUDNN_REDUCE_TENSOR_MIN || r->op == CUDNN_REDUCE_TENSOR_MAX ||
            r->op == CUDNN_REDUCE_TENSOR_AMAX);
}

static int reduce_types_ok(cudnnDataType_t a, cudnnDataType_t c, cudnnDataType_t comp)
{
    if (a == CUDNN_DATA_DOUBLE || c == CUDNN_DATA_DOUBLE || comp == CUDNN_DATA_DOUBLE)
        return a == CUDNN_DATA_DOUBLE && c == CUDNN_DATA_DOUBLE && comp == CUDNN_DATA_DOUBLE;
    return comp == CUDNN_DATA_FLOAT && fd_dtype_is_float(a) && fd_dtype_is_float(c);
}

/* Everything the size queries and the reduction share; fills *p. */
static cudnnStatus_t reduce_problem(fd_tensor_reduce_problem_t *p, cudnnReduceTensorDescriptor_t rd,
                                    cudnnTensorDescriptor_t aDesc, cudnnTensorDescriptor_t cDesc)
{
    FD_TRY(reduce_set(rd, "reduceTensorDesc"));
    FD_TRY(fd_tensor_check(aDesc, "aDesc"));
    FD_TRY(fd_tensor_check(cDesc, "cDesc"));
    FD_CHECK(aDesc->nb_dims == cDesc->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "aDesc has %d dims but cDesc has %d", aDesc->nb_dims, cDesc->nb_dims);
    for (int i = 0; i < aDesc->nb_dims; i++)
        FD_CHECK(cDesc->dim[i] == aDesc->dim[i] || cDesc->dim[i] == 1, CUDNN_STATUS_BAD_PARAM,
                 "cDesc dim %d is %d but aDesc dim %d is %d (each dim of C must be A's or 1)", i,
                 cDesc->dim[i], i, aDesc->dim[i]);
    FD_CHECK(reduce_types_ok(aDesc->dtype, cDesc->dtype, rd->comp), CUDNN_STATUS_NOT_SUPPORTED,
             "A %s, C %s with reduceTensorCompType %s is not supported (FLOAT compute for FLOAT, "
             "HALF and BFLOAT16 data; DOUBLE compute for DOUBLE data)",
             fd_dtype_name(aDesc->dtype), fd_dtype_name(cDesc->dtype), fd_dtype_name(rd->comp));
    FD_CHECK(
        !wants_indices(rd) || rd->indices_type == CUDNN_32BIT_INDICES, CUDNN_STATUS_NOT_SUPPORTED,
        "reduceTensorIndicesType %d: only CUDNN_32BIT_INDICES are produced", (int)rd->indices_type);
    FD_CHECK(!fd_tensor_has_negative_stride(aDesc) && !fd_tensor_has_negative_stride(cDesc),
             CUDNN_STATUS_NOT_SUPPORTED, "aDesc or cDesc has a negative stride");
    FD_CHECK(fd_tensor_is_non_overlapping(cDesc), CUDNN_STATUS_BAD_PARAM,
             "the output cDesc has overlapping strides; outputs may not alias themselves");
    p->op = rd->op;
    p->nan = rd->nan;
    p->comp = rd->comp;
    p->want_indices = wants_indices(rd);
    fd_tview_from_tensor(&p->a, aDesc);
    fd_tview_from_tensor(&p->c, cDesc);
    return CUDNN_STATUS_SUCCESS;
}

static size_t indices_bytes(const fd_tensor_reduce_problem_t *p)
{
    return p->want_indices ? (size_t)fd_tview_elements(&p->c) * sizeof(uint32_t) : 0;
}

static cudnnStatus_t reduce_workspace(cudnnHandle_t handle, const fd_tensor_reduce_problem_t *p,
                                      size_t *size)
{
    char why[512];
    const fd_op_impl_t *impl =
        fd_op_select(FD_OP_TENSOR_REDUCE, handle->backend, p, why, sizeof why);
    FD_CHECK(impl != NULL, CUDNN_STATUS_NOT_SUPPORTED, "tensor_reduce: %s", why);
    *size = impl->workspace(p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetReductionIndicesSize(
    cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
    const cudnnTensorDescriptor_t aDesc, const cudnnTensorDescriptor_t cDesc, size_t *sizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(sizeInBytes);
    fd_tensor_reduce_problem_t p;
    FD_TRY(reduce_problem(&p, reduceTensorDesc, aDesc, cDesc));
    *sizeInBytes = indices_bytes(&p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetReductionWorkspaceSize(
    cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
    const cudnnTensorDescriptor_t aDesc, const cudnnTensorDescriptor_t cDesc, size_t *sizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(sizeInBytes);
    fd_tensor_reduce_problem_t p;
    FD_TRY(reduce_problem(&p, reduceTensorDesc, aDesc, cDesc));
    size_t size = 0;
    FD_TRY(reduce_workspace(handle, &p, &size));
    *sizeInBytes = size;
    return CUDNN_STATUS_SUCCESS;
}

static int spans_overlap(uintptr_t a0, uintptr_t a1, uintptr_t b0, uintptr_t b1)
{
    return a0 <= b1 && b0 <= a1;
}

cudnnStatus_t CUDNNWINAPI cudnnReduceTensor(cudnnHandle_t handle,
                                            const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                            void *indices, size_t indicesSizeInBytes,
                                            void *workspace, size_t workspaceSizeInBytes,
                                            const void *alpha, const cudnnTensorDescriptor_t aDesc,
                                            const void *A, const void *beta,
                                            const cudnnTensorDescriptor_t cDesc, void *C)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(alpha && beta && A && C, CUDNN_STATUS_BAD_PARAM,
             "a pointer is NULL (alpha %p, beta %p, A %p, C %p)", alpha, beta, A, C);
    fd_tensor_reduce_problem_t p;
    FD_TRY(reduce_problem(&p, reduceTensorDesc, aDesc, cDesc));
    size_t need_idx = indices_bytes(&p), need_ws = 0;
    FD_CHECK(
        need_idx == 0 || (indices != NULL && indicesSizeInBytes >= need_idx),
        CUDNN_STATUS_BAD_PARAM,
        "the indices buffer (%p, %zu bytes) is smaller than the %zu bytes this reduction writes",
        indices, indicesSizeInBytes, need_idx);
    FD_TRY(reduce_workspace(handle, &p, &need_ws));
    FD_CHECK(workspaceSizeInBytes >= need_ws && (need_ws == 0 || workspace != NULL),
             CUDNN_STATUS_BAD_PARAM, "workSpaceSizeInBytes is %zu but the reduction needs %zu",
             workspaceSizeInBytes, need_ws);
    uintptr_t a0, a1, c0, c1;
    fd_tview_span(&p.a, A, &a0, &a1);
    fd_tview_span(&p.c, C, &c0, &c1);
    FD_CHECK(!spans_overlap(a0, a1, c0, c1), CUDNN_STATUS_BAD_PARAM,
             "C overlaps A; reductions are not in place");
    if (need_idx) {
        uintptr_t i0 = (uintptr_t)indices, i1 = i0 + need_idx - 1;
        FD_CHECK(!spans_overlap(i0, i1, c0, c1) && !spans_overlap(i0, i1, a0, a1),
                 CUDNN_STATUS_BAD_PARAM, "the indices buffer overlaps A or C");
    }
    fd_tensor_reduce_args_t args = {A,
                                    C,
                                    need_idx ? (uint32_t *)indices : NULL,
                                    workspace,
                                    workspaceSizeInBytes,
                                    fd_scale_value(alpha, cDesc->dtype),
                                    fd_scale_value(beta, cDesc->dtype), handle};
    return fd_op_run(handle, FD_OP_TENSOR_REDUCE, &p, &args);
}
