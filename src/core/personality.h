/* SPDX-License-Identifier: MIT */
/*
 * personality.h - the libcudnn.so.7 boundary (DESIGN D2): status numbers and version values a
 * cuDNN 7.6.5 binary expects. The library works in cuDNN 9 numbering throughout; only the
 * generated v7 wrappers (build/gen/fd_personality_v7.c, tools/gen_personalities.py) and the
 * callback payload of a callback registered through the v7 node (log.c) use these.
 */
#ifndef FD_CORE_PERSONALITY_H_
#define FD_CORE_PERSONALITY_H_

#include "cudnn.h"

/* What cudnnGetVersion() answers through libcudnn.so.7: cuDNN 7.6.5, MAJOR*1000+MINOR*100+PATCH. */
#define FD_V7_VERSION 7605
#define FD_V7_MAJOR 7
#define FD_V7_MINOR 6
#define FD_V7_PATCHLEVEL 5

/* cuDNN 7's status numbers (VERSION_MISMATCH, 14, came with 8.0; a v7 binary never sees it from
 * a classic function). */
enum {
    FD_V7_STATUS_SUCCESS = 0,
    FD_V7_STATUS_NOT_INITIALIZED = 1,
    FD_V7_STATUS_ALLOC_FAILED = 2,
    FD_V7_STATUS_BAD_PARAM = 3,
    FD_V7_STATUS_INTERNAL_ERROR = 4,
    FD_V7_STATUS_INVALID_VALUE = 5,
    FD_V7_STATUS_ARCH_MISMATCH = 6,
    FD_V7_STATUS_MAPPING_ERROR = 7,
    FD_V7_STATUS_EXECUTION_FAILED = 8,
    FD_V7_STATUS_NOT_SUPPORTED = 9,
    FD_V7_STATUS_LICENSE_ERROR = 10,
    FD_V7_STATUS_RUNTIME_PREREQUISITE_MISSING = 11,
    FD_V7_STATUS_RUNTIME_IN_PROGRESS = 12,
    FD_V7_STATUS_RUNTIME_FP_OVERFLOW = 13,
    FD_V7_STATUS_VERSION_MISMATCH = 14,
    FD_V7_STATUS_COUNT
};

/* A cuDNN 9 status as cuDNN 7 numbers it: exact counterparts first (1001 -> 1, 2001 -> 5,
 * 3007 -> 6, 4003 -> 2, ...), then by category (2xxx BAD_PARAM, 3xxx NOT_SUPPORTED,
 * 4xxx INTERNAL_ERROR, 5xxx EXECUTION_FAILED). docs/compat.md has the table. */
cudnnStatus_t fd_status_to_v7(cudnnStatus_t v9);
/* The inverse for statuses a v7 caller passes in (cudnnSetAlgorithmPerformance): 0..14 map to
 * their cuDNN 9 equivalents; other values pass through unchanged. */
cudnnStatus_t fd_status_from_v7(cudnnStatus_t v7);
/* cudnnGetErrorString through libcudnn.so.7: the v7 enumerator's name for 0..14, else
 * "CUDNN_UNKNOWN_STATUS" (NVIDIA's answer for an unknown code). */
const char *fd_status_name_v7(cudnnStatus_t v7);

/* log.c: registers the user callback; v7 != 0 when it comes through libcudnn.so.7, so that the
 * cudnnDebug_t it receives carries v7 status numbers and cudnn_version 7605. */
cudnnStatus_t fd_log_set_callback(unsigned mask, void *udata, cudnnCallback_t fptr, int v7);

#endif /* FD_CORE_PERSONALITY_H_ */
