/* SPDX-License-Identifier: MIT */
/*
 * probe.cu - the cuda backend's glue to the CUDA runtime: whether the backend can run here
 * (a driver, a device, sm_80 or later), the runtime version, the error mapping every .cu file
 * uses, and the three services generic code reaches through src/core/backend.c: waiting for
 * a handle's stream (Find's timer) and zeroed device scratch (Find without buffers).
 *
 * The runtime is linked statically, so on a machine without a driver the library still loads
 * and cudaGetDeviceCount answers with an error: cudnnCreate then picks cpu.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "fd_cuda.cuh"

extern "C" cudnnStatus_t fd_cuda_check(cudaError_t err, const char *file, int line,
                                       const char *what_fmt, ...)
{
    if (err == cudaSuccess)
        return CUDNN_STATUS_SUCCESS;
    char what[256];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    return fd_error(CUDNN_STATUS_EXECUTION_FAILED_CUDART, file, line, "%s: CUDA error %d %s (%s)",
                    what, (int)err, cudaGetErrorName(err), cudaGetErrorString(err));
}

/* The device count is asked once per process: without a driver the answer never changes, and
 * cudnnCreate should not pay for the runtime's failed initialisation each time. */
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_count;
static char probe_reason[256];

static void probe_devices(void)
{
    cudaError_t err = cudaGetDeviceCount(&probe_count);
    if (err == cudaSuccess && probe_count > 0)
        return;
    int rt = CUDART_VERSION;
    if (err == cudaErrorInsufficientDriver)
        snprintf(probe_reason, sizeof probe_reason,
                 "no usable CUDA driver: the driver is missing or older than the CUDA %d.%d "
                 "runtime this libfreednn was built with (cudaGetDeviceCount: %s)",
                 rt / 1000, rt % 1000 / 10, cudaGetErrorName(err));
    else if (err == cudaErrorNoDevice || (err == cudaSuccess && probe_count == 0))
        snprintf(probe_reason, sizeof probe_reason,
                 "the CUDA driver sees no GPU (cudaGetDeviceCount: %s; check "
                 "CUDA_VISIBLE_DEVICES)",
                 err == cudaSuccess ? "0 devices" : cudaGetErrorName(err));
    else
        snprintf(probe_reason, sizeof probe_reason, "cudaGetDeviceCount failed: %s (%s)",
                 cudaGetErrorName(err), cudaGetErrorString(err));
    probe_count = 0;
    cudaGetLastError(); /* leave no error behind for the caller's runtime calls */
}

extern "C" int fd_cuda_probe(char *why, size_t why_size)
{
    pthread_once(&probe_once, probe_devices);
    if (probe_count == 0) {
        if (why != NULL)
            snprintf(why, why_size, "%s", probe_reason);
        return 0;
    }
    /* The handle is for the calling thread's current device, as in cuDNN. */
    int dev = 0, major = 0, minor = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (err != cudaSuccess) {
        if (why != NULL)
            snprintf(why, why_size, "cannot read the current device's compute capability: %s (%s)",
                     cudaGetErrorName(err), cudaGetErrorString(err));
        cudaGetLastError();
        return 0;
    }
    if (major < 8) {
        if (why != NULL)
            snprintf(why, why_size,
                     "freednn's CUDA kernels need sm_80 or later; this GPU (device %d) is sm_%d%d",
                     dev, major, minor);
        return 0;
    }
    return 1;
}

extern "C" size_t fd_cuda_runtime_version(void)
{
    return (size_t)CUDART_VERSION;
}

extern "C" cudnnStatus_t fd_cuda_sync(cudnnHandle_t handle)
{
    FD_CUDA_CHECK(cudaStreamSynchronize(handle->stream), "waiting for the handle's stream %p",
                  (void *)handle->stream);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" cudnnStatus_t fd_cuda_alloc(cudnnHandle_t handle, size_t bytes, void **p)
{
    *p = NULL;
    if (bytes == 0)
        return CUDNN_STATUS_SUCCESS;
    cudaError_t err = cudaMalloc(p, bytes);
    if (err != cudaSuccess) {
        *p = NULL;
        cudaGetLastError();
        return fd_error(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED, __FILE__, __LINE__,
                        "cudaMalloc of %zu bytes failed: %s (%s)", bytes, cudaGetErrorName(err),
                        cudaGetErrorString(err));
    }
    err = cudaMemsetAsync(*p, 0, bytes, handle->stream);
    if (err != cudaSuccess) {
        cudaFree(*p);
        *p = NULL;
        FD_CUDA_CHECK(err, "zeroing %zu bytes of scratch", bytes);
    }
    return CUDNN_STATUS_SUCCESS;
}

extern "C" void fd_cuda_free(cudnnHandle_t handle, void *p)
{
    (void)handle;
    if (p != NULL)
        cudaFree(p); /* implicitly waits for the work that used it */
}
