/* SPDX-License-Identifier: MIT */
/*
 * personality.c - status renumbering between cuDNN 9 (the library's own numbers) and cuDNN 7
 * (what binaries linked against libcudnn.so.7 expect); see personality.h and docs/compat.md.
 */
#include "personality.h"

/* cuDNN 9 codes with an exact cuDNN 7 counterpart (the aliases of cudnn_graph.h). */
static const struct {
    cudnnStatus_t v9;
    int v7;
} exact[] = {
    {CUDNN_STATUS_SUCCESS, FD_V7_STATUS_SUCCESS},
    {CUDNN_STATUS_NOT_INITIALIZED, FD_V7_STATUS_NOT_INITIALIZED},
    {CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, FD_V7_STATUS_ALLOC_FAILED},
    {CUDNN_STATUS_BAD_PARAM, FD_V7_STATUS_BAD_PARAM},
    {CUDNN_STATUS_INTERNAL_ERROR, FD_V7_STATUS_INTERNAL_ERROR},
    {CUDNN_STATUS_INVALID_VALUE, FD_V7_STATUS_INVALID_VALUE},
    {CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH, FD_V7_STATUS_ARCH_MISMATCH},
    {CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED, FD_V7_STATUS_MAPPING_ERROR},
    {CUDNN_STATUS_EXECUTION_FAILED, FD_V7_STATUS_EXECUTION_FAILED},
    {CUDNN_STATUS_NOT_SUPPORTED, FD_V7_STATUS_NOT_SUPPORTED},
    {CUDNN_STATUS_LICENSE_ERROR, FD_V7_STATUS_LICENSE_ERROR},
    {CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING, FD_V7_STATUS_RUNTIME_PREREQUISITE_MISSING},
    {CUDNN_STATUS_RUNTIME_IN_PROGRESS, FD_V7_STATUS_RUNTIME_IN_PROGRESS},
    {CUDNN_STATUS_RUNTIME_FP_OVERFLOW, FD_V7_STATUS_RUNTIME_FP_OVERFLOW},
    {CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, FD_V7_STATUS_VERSION_MISMATCH},
};
/* The first FD_V7_STATUS_COUNT rows are indexed by the v7 number (fd_status_from_v7). */
_Static_assert(sizeof exact / sizeof exact[0] == FD_V7_STATUS_COUNT, "one row per v7 status");

static const char *const v7_names[] = {
    "CUDNN_STATUS_SUCCESS",
    "CUDNN_STATUS_NOT_INITIALIZED",
    "CUDNN_STATUS_ALLOC_FAILED",
    "CUDNN_STATUS_BAD_PARAM",
    "CUDNN_STATUS_INTERNAL_ERROR",
    "CUDNN_STATUS_INVALID_VALUE",
    "CUDNN_STATUS_ARCH_MISMATCH",
    "CUDNN_STATUS_MAPPING_ERROR",
    "CUDNN_STATUS_EXECUTION_FAILED",
    "CUDNN_STATUS_NOT_SUPPORTED",
    "CUDNN_STATUS_LICENSE_ERROR",
    "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING",
    "CUDNN_STATUS_RUNTIME_IN_PROGRESS",
    "CUDNN_STATUS_RUNTIME_FP_OVERFLOW",
    "CUDNN_STATUS_VERSION_MISMATCH",
};
_Static_assert(sizeof v7_names / sizeof v7_names[0] == FD_V7_STATUS_COUNT, "one name per v7 status");

cudnnStatus_t fd_status_to_v7(cudnnStatus_t v9)
{
    for (int i = 0; i < FD_V7_STATUS_COUNT; i++)
        if (exact[i].v9 == v9)
            return (cudnnStatus_t)exact[i].v7;
    switch ((int)v9) {
    case CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH: /* a saved blob v7 calls invalid */
        return (cudnnStatus_t)FD_V7_STATUS_BAD_PARAM;
    case CUDNN_STATUS_DEPRECATED:
    case CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED:
        return (cudnnStatus_t)FD_V7_STATUS_NOT_SUPPORTED;
    case CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED:
        return (cudnnStatus_t)FD_V7_STATUS_ALLOC_FAILED;
    default:
        break;
    }
    switch (CUDNN_STATUS_CATEGORY((int)v9)) {
    case CUDNN_STATUS_BAD_PARAM:
        return (cudnnStatus_t)FD_V7_STATUS_BAD_PARAM;
    case CUDNN_STATUS_NOT_SUPPORTED:
        return (cudnnStatus_t)FD_V7_STATUS_NOT_SUPPORTED;
    case CUDNN_STATUS_EXECUTION_FAILED:
        return (cudnnStatus_t)FD_V7_STATUS_EXECUTION_FAILED;
    default: /* 4xxx, and anything the library should never produce */
        return (cudnnStatus_t)FD_V7_STATUS_INTERNAL_ERROR;
    }
}

cudnnStatus_t fd_status_from_v7(cudnnStatus_t v7)
{
    if ((int)v7 >= 0 && (int)v7 < FD_V7_STATUS_COUNT)
        return exact[(int)v7].v9;
    return v7;
}

const char *fd_status_name_v7(cudnnStatus_t v7)
{
    if ((int)v7 >= 0 && (int)v7 < FD_V7_STATUS_COUNT)
        return v7_names[(int)v7];
    return "CUDNN_UNKNOWN_STATUS";
}
