/* SPDX-License-Identifier: MIT */
/*
 * cudnn_version.h - version numbers of the cuDNN interface that freednn serves, and of freednn.
 *
 * freednn re-implements the classic (legacy) cuDNN C API. The CUDNN_* numbers below name the
 * cuDNN release whose header interface is reproduced (enum values, status codes, prototypes);
 * the FREEDNN_* numbers name the freednn release itself. Both are plain integer macros usable
 * in #if expressions.
 */
#ifndef CUDNN_VERSION_H_
#define CUDNN_VERSION_H_

/* --- Interface version (cuDNN 9.19.0) ---------------------------------------------------- */

#define CUDNN_MAJOR 9
#define CUDNN_MINOR 19
#define CUDNN_PATCHLEVEL 0

/* Single comparable number; cuDNN 9 encodes it as MAJOR*10000 + MINOR*100 + PATCH (91900).
 * cudnnGetVersion() returns a value with the same encoding. */
#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)

/* Newest GPU architecture (compute capability MAJOR.MINOR) the interface version knows of, and
 * the same value as SM number: MAJOR*100 + MINOR*10 (12.1 -> 1210). cudnnGetMaxDeviceVersion()
 * reports the corresponding run-time value. */
#define CUDNN_MAX_SM_MAJOR_NUMBER 12
#define CUDNN_MAX_SM_MINOR_NUMBER 1
#define CUDNN_MAX_DEVICE_VERSION (CUDNN_MAX_SM_MAJOR_NUMBER * 100 + CUDNN_MAX_SM_MINOR_NUMBER * 10)

/* --- freednn's own version --------------------------------------------------------------- */

#define FREEDNN_MAJOR 0
#define FREEDNN_MINOR 1
#define FREEDNN_PATCHLEVEL 0

/* Encoded like CUDNN_VERSION: MAJOR*10000 + MINOR*100 + PATCH. */
#define FREEDNN_VERSION (FREEDNN_MAJOR * 10000 + FREEDNN_MINOR * 100 + FREEDNN_PATCHLEVEL)

#endif /* CUDNN_VERSION_H_ */
