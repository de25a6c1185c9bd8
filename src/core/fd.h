/* SPDX-License-Identifier: MIT */
/*
 * fd.h - what every translation unit of the library shares: the error macros, the logging
 * entry points, the descriptor structs behind cuDNN's opaque handles and the dtype helpers.
 *
 * Errors travel one way only: FD_CHECK records "file:line" plus a sentence with the offending
 * values in the calling thread's last-error slot (cudnnGetLastErrorString), logs it when
 * CUDNN_LOGLEVEL_DBG asks, and returns the status; FD_TRY propagates.
 */
#ifndef FD_CORE_FD_H_
#define FD_CORE_FD_H_

#include <stddef.h>
#include <stdint.h>

#include "cudnn.h"
#include "freednn.h"

#define FD_DIM_MAX CUDNN_DIM_MAX /* tensor and filter rank limit (8) */
#define FD_CONV_SPATIAL_MAX 3    /* convolution computes 1d, 2d and 3d */

#if defined(__GNUC__)
#define FD_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FD_PRINTF(a, b)
#endif

/* ---- errors ---------------------------------------------------------------------------- */

/* Records a rejection (thread-local), logs it, calls the user callback; returns `status`. */
cudnnStatus_t fd_error(cudnnStatus_t status, const char *file, int line, const char *fmt, ...)
    FD_PRINTF(4, 5);

#define FD_CHECK(cond, status, ...)                                                            \
    do {                                                                                       \
        if (!(cond))                                                                           \
            return fd_error((status), __FILE__, __LINE__, __VA_ARGS__);                        \
    } while (0)

#define FD_TRY(expr)                                                                           \
    do {                                                                                       \
        cudnnStatus_t fd_try_status_ = (expr);                                                 \
        if (fd_try_status_ != CUDNN_STATUS_SUCCESS)                                            \
            return fd_try_status_;                                                             \
    } while (0)

#define FD_CHECK_NOT_NULL(p)                                                                   \
    FD_CHECK((p) != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", #p)

/* An API function that later work implements: NOT_SUPPORTED with the reason, nothing written.
 * tools/gen_support_matrix.py lists every use of this macro in docs/support-matrix.md. The
 * definition is weak, so a real one elsewhere in the library replaces it at link time; the
 * generator's --check fails while a replaced stub is still in the tree. */
#define FD_UNSUPPORTED(name, params, reason)                                                   \
    __attribute__((weak)) cudnnStatus_t CUDNNWINAPI name params                                \
    {                                                                                          \
        return fd_unsupported(#name, reason);                                                  \
    }
cudnnStatus_t fd_unsupported(const char *function, const char *reason);

/* ---- logging (DESIGN D10) --------------------------------------------------------------- */

/* Marks the start of a public call: names it for error records and, at CUDNN_LOGLEVEL_DBG=3,
 * writes the cuDNN-style "I! CuDNN (v...) function X() called:" record. */
void fd_api_enter(const char *function, cudnnHandle_t handle);
#if defined(FD_HAVE_NVTX) && !defined(__cplusplus)
/* Builds with NVTX (cmake/cuda.cmake) also open an NVTX range named after the function (domain
 * "freednn", core/trace.c); the cleanup attribute closes it on every return path. FD_API must
 * stay the first statement of a function body (it declares two variables). */
void *fd_trace_push(const char *function, void **site);
void fd_trace_pop(void **range);
#define FD_API(handle)                                                                         \
    static void *fd_api_site_;                                                                 \
    void *fd_api_range_ __attribute__((cleanup(fd_trace_pop), unused)) =                       \
        fd_trace_push(__func__, &fd_api_site_);                                                \
    fd_api_enter(__func__, (handle))
#else
#define FD_API(handle) fd_api_enter(__func__, (handle))
#endif

/* Reads a severity threshold: 0 none, 1 errors, 2 +warnings, 3 +info. */
int fd_log_level(void);
void fd_log_warning(const char *fmt, ...) FD_PRINTF(1, 2);
/* A free-form info record (FREEDNN_LOG_DISPATCH and similar); written to CUDNN_LOGDEST_DBG. */
void fd_log_info(const char *fmt, ...) FD_PRINTF(1, 2);
int fd_env_flag(const char *name); /* 1 when the variable is set to a non-zero number */
int fd_env_on(const char *name);   /* 1 unless the variable is set to "0" (default-on switches) */
/* The variable's value when it is a whole decimal number in [lo, hi], else dflt (knobs). */
long fd_env_long(const char *name, long lo, long hi, long dflt);
/* fd_env_flag of FREEDNN_LOG_DISPATCH (bit 0) and FREEDNN_LOG_CMD (bit 1) in one pass over the
 * environment (a convolution call asks at every call, so setenv between calls takes effect). */
#define FD_LOG_DISPATCH_BIT 1u
#define FD_LOG_CMD_BIT 2u
unsigned fd_env_log_flags(void);

/* ---- descriptors ------------------------------------------------------------------------ */

#define FD_MAGIC_HANDLE 0x48444e46u /* "FNDH" */
#define FD_MAGIC_TENSOR 0x54444e46u
#define FD_MAGIC_FILTER 0x46444e46u
#define FD_MAGIC_CONV 0x43444e46u

typedef enum { FD_BACKEND_REF = 0, FD_BACKEND_CPU = 1, FD_BACKEND_CUDA = 2, FD_BACKEND_COUNT } fd_backend_t;
_Static_assert(FD_BACKEND_REF == (int)FREEDNN_BACKEND_REF && FD_BACKEND_CPU == (int)FREEDNN_BACKEND_CPU &&
                   FD_BACKEND_CUDA == (int)FREEDNN_BACKEND_CUDA,
               "fd_backend_t mirrors freednnBackend_t");

struct cudnnContext {
    uint32_t magic;
    fd_backend_t backend;
    cudaStream_t stream;
    cudnnStatus_t runtime_error; /* reported and cleared by cudnnQueryRuntimeError */
    struct fd_tunecache *tune;   /* Find results of this handle (core/tunecache.c); lazy */
    /* cuda: device memory the handle owns for kernels whose API call passes no workspace (the
     * legacy batch-norm entries' multi-block statistics), made with the handle; its use is
     * ordered across cudnnSetStream (src/cuda/probe.cu: fd_cuda_handle_*). NULL elsewhere. */
    void *scratch;
    size_t scratch_size;
    void *scratch_event; /* cudaEvent_t: the last stream's work, for the next stream to wait on */
    /* cuda: the one-launch split-K tile counters (src/cuda/splitk.cuh), zeroed once with the
     * handle, a ring of slots; splitk_next picks a call's slot. NULL elsewhere. */
    unsigned *splitk_ctr;
    unsigned splitk_next;
    struct fd_conv_plans *plans; /* convolution calls' plans (core/conv_plan.c), made with the handle */
};

struct cudnnTensorStruct {
    uint32_t magic;
    int is_set;
    cudnnDataType_t dtype;
    int nb_dims;
    int dim[FD_DIM_MAX];
    int stride[FD_DIM_MAX]; /* in elements; for NCHW_VECT_C in vectors of `vect` elements */
    int vect;               /* 1, or 4 / 32 for the vectorised int8 layouts */
};

struct cudnnFilterStruct {
    uint32_t magic;
    int is_set;
    cudnnDataType_t dtype;
    cudnnTensorFormat_t format;
    int nb_dims;
    int dim[FD_DIM_MAX]; /* always K, C, spatial... whatever the format */
};

struct cudnnConvolutionStruct {
    uint32_t magic;
    int nb_spatial; /* arrayLength; 0 until set */
    int pad[FD_DIM_MAX - 2];
    int stride[FD_DIM_MAX - 2];
    int dil[FD_DIM_MAX - 2];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t compute;
    int groups;
    cudnnMathType_t math;
    cudnnReorderType_t reorder;
};

cudnnStatus_t fd_handle_check(cudnnHandle_t handle);
cudnnStatus_t fd_tensor_check(cudnnTensorDescriptor_t desc, const char *name);
cudnnStatus_t fd_filter_check(cudnnFilterDescriptor_t desc, const char *name);
cudnnStatus_t fd_conv_desc_check(cudnnConvolutionDescriptor_t desc, const char *name);

/* Number of elements a tensor addresses and its extent (max offset + 1), 64-bit. */
int64_t fd_tensor_elements(const struct cudnnTensorStruct *t);
int64_t fd_tensor_extent(const struct cudnnTensorStruct *t);
/* 1 when no two index tuples share an address (an output may not overlap itself). */
int fd_tensor_is_non_overlapping(const struct cudnnTensorStruct *t);
int fd_tensor_has_negative_stride(const struct cudnnTensorStruct *t);
/* Strides of a filter in the order K, C, spatial..., derived from its format. */
void fd_filter_strides(const struct cudnnFilterStruct *f, int64_t *stride);

/* ---- data types ------------------------------------------------------------------------- */

size_t fd_dtype_size(cudnnDataType_t dt);        /* bytes per element (vector for INT8x4..), 0 if unknown */
const char *fd_dtype_name(cudnnDataType_t dt);    /* "CUDNN_DATA_FLOAT", or "invalid" */
int fd_dtype_is_valid(cudnnDataType_t dt);        /* an enumerator cuDNN 9 defines */
const char *fd_status_name(cudnnStatus_t status); /* the enumerator name */

/* Loads element i (in elements from base) as double; stores with round-to-nearest-even. */
double fd_load(cudnnDataType_t dt, const void *base, int64_t i);
void fd_store(cudnnDataType_t dt, void *base, int64_t i, double v);
uint16_t fd_f16_from_f64(double v);
double fd_f64_from_f16(uint16_t h);
uint16_t fd_bf16_from_f64(double v);
double fd_f64_from_bf16(uint16_t h);

/* alpha/beta are float for all but DOUBLE outputs (cuDNN "Scaling Parameters"). */
double fd_scale_value(const void *p, cudnnDataType_t output_dtype);

#endif /* FD_CORE_FD_H_ */
