/* SPDX-License-Identifier: MIT */
/*
 * cudnn_graph.h - freednn: the base layer of the classic cuDNN API.
 *
 * Holds what every other cuDNN header builds on: the library handle, status codes, element data
 * types, the enums shared by several operation families, version queries, error reporting and
 * the logging callback. (NVIDIA's header of the same name also carries the graph/"backend" API;
 * freednn implements the classic API only and does not declare it.)
 *
 * CUDA dependency: the API mentions two CUDA types, cudaStream_t and libraryPropertyType. When the
 * CUDA toolkit headers can be found they are included; otherwise (or when FREEDNN_NO_CUDA_HEADERS
 * is defined before inclusion) binary-identical stand-ins are declared here, so programs that only
 * use freednn's host backends build without a toolkit. If you force the stand-ins, include any
 * CUDA headers you need BEFORE this header: included after it, library_types.h would be skipped
 * (its guard is taken) and strict C99 would reject the second cudaStream_t typedef.
 */
#ifndef CUDNN_GRAPH_H_
#define CUDNN_GRAPH_H_

#include <stddef.h>
#include <stdint.h>

/* --- CUDA types ------------------------------------------------------------------------------ */

#if !defined(FREEDNN_NO_CUDA_HEADERS) && defined(__has_include)
#if __has_include(<cuda_runtime_api.h>) && __has_include(<library_types.h>)
/* The toolkit headers use anonymous unions, which strict ISO C99 (-pedantic) rejects; keep the
 * user's warning flags from failing on code that is not theirs (or ours). */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <cuda_runtime_api.h>
#include <library_types.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#define FREEDNN_HAVE_CUDA_HEADERS 1
#endif
#endif

#if !defined(FREEDNN_HAVE_CUDA_HEADERS)
/* Stand-in for CUDA's stream handle: an opaque pointer with the same struct tag as the toolkit's,
 * so the ABI and C++ name mangling match. Skipped when driver_types.h was already seen. */
#if !defined(__DRIVER_TYPES_H__) && !defined(FREEDNN_CUDA_STREAM_DECLARED)
#define FREEDNN_CUDA_STREAM_DECLARED 1
typedef struct CUstream_st *cudaStream_t;
#endif
/* Stand-in for library_types.h's libraryPropertyType (argument of cudnnGetProperty), guarded by
 * the toolkit header's own include guard so the two never collide. */
#if !defined(__LIBRARY_TYPES_H__)
#define __LIBRARY_TYPES_H__
typedef enum libraryPropertyType_t {
    MAJOR_VERSION, /* 0: major version number */
    MINOR_VERSION, /* 1: minor version number */
    PATCH_LEVEL    /* 2: patch level */
} libraryPropertyType;
#if !defined(__cplusplus)
typedef enum libraryPropertyType_t libraryPropertyType_t;
#endif
#endif
#endif /* !FREEDNN_HAVE_CUDA_HEADERS */

#include "cudnn_version.h"

/* Per-sub-library version numbers; always equal to the interface version. */
#define CUDNN_GRAPH_MAJOR CUDNN_MAJOR
#define CUDNN_GRAPH_MINOR CUDNN_MINOR
#define CUDNN_GRAPH_PATCH CUDNN_PATCHLEVEL

/* --- Portability macros ---------------------------------------------------------------------- */

/* Calling convention of every exported function: __stdcall on Windows, default elsewhere. */
#ifndef CUDNNWINAPI
#ifdef _WIN32
#define CUDNNWINAPI __stdcall
#else
#define CUDNNWINAPI
#endif
#endif

/* Deprecation markers. cuDNN 9 tags many classic-API declarations with these; freednn supports
 * the whole classic API and tags nothing, but defines the macros (empty unless the user defines
 * them first) so that code mentioning them keeps compiling. */
#ifndef CUDNN_DEPRECATED
#define CUDNN_DEPRECATED
#endif
#ifndef CUDNN_DEPRECATED_ENUM
#define CUDNN_DEPRECATED_ENUM
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/* --- Library handle -------------------------------------------------------------------------- */

/* A library context: owns per-thread resources and the stream that work is issued on. Create one
 * per host thread (a handle must not be used by two threads at once). */
struct cudnnContext;
typedef struct cudnnContext *cudnnHandle_t;

/* --- Status codes ---------------------------------------------------------------------------- */

/* Result of every API call. cuDNN 9 numbering: 0 is success; errors are CATEGORY + DETAIL where
 * the category is a multiple of 1000 (1000 misc, 2000 bad parameter, 3000 not supported,
 * 4000 internal error, 5000 execution failed). The cuDNN 7/8 names kept at the end are aliases of
 * their cuDNN 9 equivalents. */
typedef enum {
    CUDNN_STATUS_SUCCESS = 0,

    /* 1000s: failures not tied to one parameter */
    CUDNN_STATUS_NOT_INITIALIZED = 1001,                /* library or handle not usable */
    CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH = 1002,    /* parts of the library disagree on version */
    CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH = 1003, /* saved blob from another version */
    CUDNN_STATUS_DEPRECATED = 1004,                     /* feature withdrawn */
    CUDNN_STATUS_LICENSE_ERROR = 1005,
    CUDNN_STATUS_RUNTIME_IN_PROGRESS = 1006,            /* asynchronous check not finished yet */
    CUDNN_STATUS_RUNTIME_FP_OVERFLOW = 1007,            /* numerical overflow detected on device */
    CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED = 1008,

    /* 2000s: the caller passed something invalid */
    CUDNN_STATUS_BAD_PARAM = 2000,
    CUDNN_STATUS_BAD_PARAM_NULL_POINTER = 2002,
    CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER = 2003,
    CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED = 2004,
    CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND = 2005,
    CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT = 2006,    /* workspace/reserve/output buffer too small */
    CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH = 2007,
    CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH = 2008,       /* descriptors with incompatible dims */
    CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES = 2009,
    CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE = 2010,
    CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH = 2011,
    CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE = 2012,

    /* 3000s: valid request the implementation cannot serve */
    CUDNN_STATUS_NOT_SUPPORTED = 3000,
    CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN = 3001,
    CUDNN_STATUS_NOT_SUPPORTED_SHAPE = 3002,
    CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE = 3003,
    CUDNN_STATUS_NOT_SUPPORTED_LAYOUT = 3004,
    CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER = 3005,
    CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART = 3006,
    CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH = 3007,    /* GPU too old/new for the build */
    CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING = 3008,
    CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE = 3009,
    CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT = 3010,
    CUDNN_STATUS_NOT_SUPPORTED_PADDING = 3011,
    CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM = 3012,
    CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API = 3013,
    CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE = 3014,

    /* 4000s: the library itself went wrong */
    CUDNN_STATUS_INTERNAL_ERROR = 4000,
    CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED = 4001,
    CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE = 4002,
    CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED = 4003,
    CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED = 4004,
    CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM = 4005,
    CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED = 4006,

    /* 5000s: a launched computation failed */
    CUDNN_STATUS_EXECUTION_FAILED = 5000,
    CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER = 5001,
    CUDNN_STATUS_EXECUTION_FAILED_CUBLAS = 5002,
    CUDNN_STATUS_EXECUTION_FAILED_CUDART = 5003,
    CUDNN_STATUS_EXECUTION_FAILED_CURAND = 5004,

    /* Pre-9 names (the numbers are the cuDNN 9 ones, not the old 0..14) */
    CUDNN_STATUS_ALLOC_FAILED = CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
    CUDNN_STATUS_INVALID_VALUE = 2001, /* prefer CUDNN_STATUS_BAD_PARAM */
    CUDNN_STATUS_ARCH_MISMATCH = CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH,
    CUDNN_STATUS_MAPPING_ERROR = CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED,
    CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING = CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING,
    CUDNN_STATUS_VERSION_MISMATCH = CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH
} cudnnStatus_t;

/* Compose a status from a category (multiple of 1000) and a detail number. */
#define CUDNN_STATUS_FULL_ERROR_CODE(category, specific_err) ((cudnnStatus_t)(0 + (category) + (specific_err)))
/* Category of a status (e.g. 2005 -> 2000), and its detail within the category (2005 -> 5). */
#define CUDNN_STATUS_CATEGORY(full_error_code) ((full_error_code) / 1000 * 1000)
#define CUDNN_STATUS_SPECIFIC_ERROR(full_error_code) ((full_error_code) % 1000)

/* --- Shared enums and limits ----------------------------------------------------------------- */

/* Element type of tensors and filters, and compute type of several operations. */
typedef enum {
    CUDNN_DATA_FLOAT = 0,              /* 32-bit IEEE float */
    CUDNN_DATA_DOUBLE = 1,             /* 64-bit IEEE float */
    CUDNN_DATA_HALF = 2,               /* 16-bit IEEE float */
    CUDNN_DATA_INT8 = 3,               /* signed 8-bit integer */
    CUDNN_DATA_INT32 = 4,              /* signed 32-bit integer */
    CUDNN_DATA_INT8x4 = 5,             /* 4 packed int8 (legacy vectorised layout) */
    CUDNN_DATA_UINT8 = 6,              /* unsigned 8-bit integer */
    CUDNN_DATA_UINT8x4 = 7,            /* 4 packed uint8 (legacy) */
    CUDNN_DATA_INT8x32 = 8,            /* 32 packed int8 (legacy) */
    CUDNN_DATA_BFLOAT16 = 9,           /* bfloat16: 8-bit exponent, 7-bit mantissa */
    CUDNN_DATA_INT64 = 10,             /* signed 64-bit integer */
    CUDNN_DATA_BOOLEAN = 11,           /* boolean */
    CUDNN_DATA_FP8_E4M3 = 12,          /* 8-bit float, 4-bit exponent / 3-bit mantissa */
    CUDNN_DATA_FP8_E5M2 = 13,          /* 8-bit float, 5-bit exponent / 2-bit mantissa */
    CUDNN_DATA_FAST_FLOAT_FOR_FP8 = 14,/* reduced-precision accumulation for FP8 math */
    CUDNN_DATA_FP8_E8M0 = 15,          /* 8-bit power-of-two scale factor */
    CUDNN_DATA_FP4_E2M1 = 16,          /* 4-bit float */
    CUDNN_DATA_INT4 = 17,              /* signed 4-bit integer */
    CUDNN_DATA_UINT4 = 18,             /* unsigned 4-bit integer */
    CUDNN_DATA_UINT32 = 19,            /* unsigned 32-bit integer */
    CUDNN_DATA_COMPLEX_FP32 = 20,      /* pair of 32-bit floats */
    CUDNN_DATA_COMPLEX_FP64 = 21       /* pair of 64-bit floats */
} cudnnDataType_t;

/* Whether an operation may use reduced-precision matrix units (Tensor Cores). */
typedef enum {
    CUDNN_DEFAULT_MATH = 0,                    /* library decides */
    CUDNN_TENSOR_OP_MATH = 1,                  /* Tensor Core math allowed */
    CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2, /* ... also after down-converting FP32 inputs */
    CUDNN_FMA_MATH = 3                         /* plain FMA math only, no Tensor Cores */
} cudnnMathType_t;

/* Whether min/max style operations let a NaN input through to the output. */
typedef enum {
    CUDNN_NOT_PROPAGATE_NAN = 0, /* NaN inputs are skipped by the comparison */
    CUDNN_PROPAGATE_NAN = 1      /* any NaN input makes the result NaN */
} cudnnNanPropagation_t;

/* CTC loss: what to do with the gradient of a sample whose label sequence cannot fit its input
 * length (out-of-bound sample). */
typedef enum {
    CUDNN_CTC_ZERO_OOB_GRADIENTS = 0, /* write zeros for that sample's gradient */
    CUDNN_CTC_SKIP_OOB_GRADIENTS = 1  /* leave that sample's gradient memory untouched */
} cudnnCTCGradMode_t;

/* Memory layout named by 4-d (and Nd) tensor/filter setters. */
typedef enum {
    CUDNN_TENSOR_NCHW = 0,       /* W fastest, then H, then C, then N */
    CUDNN_TENSOR_NHWC = 1,       /* C fastest (channels interleaved) */
    CUDNN_TENSOR_NCHW_VECT_C = 2 /* NCHW with C split into vectors packed in each element */
} cudnnTensorFormat_t;

/* Reduction applied by cudnnReduceTensor. */
typedef enum {
    CUDNN_REDUCE_TENSOR_ADD = 0,         /* sum */
    CUDNN_REDUCE_TENSOR_MUL = 1,         /* product */
    CUDNN_REDUCE_TENSOR_MIN = 2,         /* minimum (indices available) */
    CUDNN_REDUCE_TENSOR_MAX = 3,         /* maximum (indices available) */
    CUDNN_REDUCE_TENSOR_AMAX = 4,        /* maximum of absolute values (indices available) */
    CUDNN_REDUCE_TENSOR_AVG = 5,         /* arithmetic mean */
    CUDNN_REDUCE_TENSOR_NORM1 = 6,       /* sum of absolute values */
    CUDNN_REDUCE_TENSOR_NORM2 = 7,       /* square root of sum of squares */
    CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS = 8 /* product of the non-zero elements */
} cudnnReduceTensorOp_t;

/* Pointwise nonlinearity of an activation descriptor. */
typedef enum {
    CUDNN_ACTIVATION_SIGMOID = 0,      /* 1 / (1 + exp(-x)) */
    CUDNN_ACTIVATION_RELU = 1,         /* max(x, 0) */
    CUDNN_ACTIVATION_TANH = 2,         /* tanh(x) */
    CUDNN_ACTIVATION_CLIPPED_RELU = 3, /* min(max(x, 0), coef) */
    CUDNN_ACTIVATION_ELU = 4,          /* x > 0 ? x : coef * (exp(x) - 1) */
    CUDNN_ACTIVATION_IDENTITY = 5,     /* x (cuDNN accepts it only in fused convolution) */
    CUDNN_ACTIVATION_SWISH = 6         /* x * sigmoid(swish_beta * x) */
} cudnnActivationMode_t;

/* Convolution flavour: true convolution flips the filter, cross-correlation does not. */
typedef enum {
    CUDNN_CONVOLUTION = 0,
    CUDNN_CROSS_CORRELATION = 1
} cudnnConvolutionMode_t;

/* Whether INT8x32 filters/bias are reordered for the vectorised kernels. */
typedef enum {
    CUDNN_DEFAULT_REORDER = 0,
    CUDNN_NO_REORDER = 1
} cudnnReorderType_t;

/* Largest number of dimensions an Nd tensor, filter or operation descriptor can have. */
#define CUDNN_DIM_MAX 8

/* --- Versions -------------------------------------------------------------------------------- */

/* Version of the running library, encoded as CUDNN_VERSION (MAJOR*10000 + MINOR*100 + PATCH).
 * Compare it with CUDNN_VERSION to detect header/library mismatch. */
size_t CUDNNWINAPI cudnnGetVersion(void);

/* Newest GPU architecture the running library supports, as SM number MAJOR*100 + MINOR*10. */
size_t CUDNNWINAPI cudnnGetMaxDeviceVersion(void);

/* Version of the CUDA runtime the library was built against (CUDART_VERSION encoding, e.g.
 * 12080 for 12.8). */
size_t CUDNNWINAPI cudnnGetCudartVersion(void);

/* One component of the library version: *value receives the major, minor or patch number. */
cudnnStatus_t CUDNNWINAPI cudnnGetProperty(libraryPropertyType type, int *value);

/* Cross-check that the parts of the library have the same version. Returns CUDNN_STATUS_SUCCESS,
 * or CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH. */
cudnnStatus_t CUDNNWINAPI cudnnGraphVersionCheck(void);

/* --- Errors ---------------------------------------------------------------------------------- */

/* Constant, NUL-terminated name of a status code (e.g. "CUDNN_STATUS_BAD_PARAM"); never NULL. */
const char *CUDNNWINAPI cudnnGetErrorString(cudnnStatus_t status);

/* Copy the most recent error message of the calling thread into message (host buffer of max_size
 * bytes, always NUL-terminated, truncated if needed); empty when there was no error. */
void CUDNNWINAPI cudnnGetLastErrorString(char *message, size_t max_size);

/* Opaque marker used by cudnnQueryRuntimeError; reserved, pass NULL. */
typedef struct cudnnRuntimeTag_t cudnnRuntimeTag_t;

/* How cudnnQueryRuntimeError obtains errors detected asynchronously on the device. */
typedef enum {
    CUDNN_ERRQUERY_RAWCODE = 0,     /* return the raw flag without synchronising */
    CUDNN_ERRQUERY_NONBLOCKING = 1, /* report only if the pending work has finished */
    CUDNN_ERRQUERY_BLOCKING = 2     /* wait for the pending work on the handle's stream */
} cudnnErrQueryMode_t;

/* Report errors detected during kernel execution (e.g. numeric overflow in some batch-norm
 * modes). *rstatus receives the result; tag must be NULL. */
cudnnStatus_t CUDNNWINAPI cudnnQueryRuntimeError(cudnnHandle_t handle,
                                                 cudnnStatus_t *rstatus,
                                                 cudnnErrQueryMode_t mode,
                                                 cudnnRuntimeTag_t *tag);

/* --- Handle lifetime and stream -------------------------------------------------------------- */

/* Create a library context on the current device and store it in *handle. Expensive: create
 * once per thread and reuse. */
cudnnStatus_t CUDNNWINAPI cudnnCreate(cudnnHandle_t *handle);

/* Release a context created by cudnnCreate, after the work it issued has completed. */
cudnnStatus_t CUDNNWINAPI cudnnDestroy(cudnnHandle_t handle);

/* Issue subsequent work of handle on streamId (NULL selects the default stream). */
cudnnStatus_t CUDNNWINAPI cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId);

/* Stream that handle currently issues work on. */
cudnnStatus_t CUDNNWINAPI cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId);

/* --- Logging callback ------------------------------------------------------------------------ */

/* Severity of a message passed to the logging callback. */
typedef enum {
    CUDNN_SEV_FATAL = 0,   /* unrecoverable (has no mask bit) */
    CUDNN_SEV_ERROR = 1,   /* an API call failed */
    CUDNN_SEV_WARNING = 2, /* suspicious but accepted usage */
    CUDNN_SEV_INFO = 3     /* API-call trace */
} cudnnSeverity_t;

/* Bits of the mask given to cudnnSetCallback, selecting which severities are delivered. */
#define CUDNN_SEV_ERROR_EN (1U << CUDNN_SEV_ERROR)
#define CUDNN_SEV_WARNING_EN (1U << CUDNN_SEV_WARNING)
#define CUDNN_SEV_INFO_EN (1U << CUDNN_SEV_INFO)

/* Context of one logged API call, handed to the callback (120 bytes on LP64). */
typedef struct cudnnDebugStruct {
    unsigned cudnn_version;    /* CUDNN_VERSION-encoded library version */
    cudnnStatus_t cudnnStatus; /* status the call returns */
    unsigned time_sec;         /* wall-clock time, seconds since the Unix epoch */
    unsigned time_usec;        /* ... and the microseconds part */
    unsigned time_delta;       /* seconds since the library was first used */
    cudnnHandle_t handle;      /* handle the call was made on, or NULL */
    cudaStream_t stream;       /* stream of that handle */
    unsigned long long pid;    /* process id */
    unsigned long long tid;    /* thread id */
    int cudaDeviceId;          /* current device ordinal */
    int reserved[15];          /* zero */
} cudnnDebug_t;

/* Logging callback: sev is the message severity, udata the pointer registered with it, dbg the
 * call context and msg the NUL-terminated text. dbg and msg are valid only during the call. */
typedef void (*cudnnCallback_t)(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg);

/* Install a process-wide logging callback. mask is an OR of CUDNN_SEV_*_EN bits; fptr NULL
 * restores the built-in logger (controlled by environment variables); mask 0 disables logging. */
cudnnStatus_t CUDNNWINAPI cudnnSetCallback(unsigned mask, void *udata, cudnnCallback_t fptr);

/* Current logging mask, user pointer and callback (all three output pointers must be valid). */
cudnnStatus_t CUDNNWINAPI cudnnGetCallback(unsigned *mask, void **udata, cudnnCallback_t *fptr);

#if defined(__cplusplus)
}
#endif

#endif /* CUDNN_GRAPH_H_ */
