/* SPDX-License-Identifier: MIT */
/*
 * probe.cu - the cuda backend's glue to the CUDA runtime: whether the backend can run here
 * (a driver, a device, sm_80 or later), the runtime version, the error mapping every .cu file
 * uses, and the services generic code reaches through src/core/backend.c: waiting for a
 * handle's stream, Find's timer (events on that stream) and zeroed device scratch (Find without
 * buffers), and the handle's own device memory: its scratch and the one-launch split-K counters
 * (splitk.cuh), allocated with the handle, never by a compute call.
 *
 * The runtime is linked statically, so on a machine without a driver the library still loads
 * and cudaGetDeviceCount answers with an error: cudnnCreate then picks cpu.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_cuda.cuh"
#include "splitk.cuh"

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

/* ---- launches through the driver (fd_cuda.cuh) ------------------------------------------ */

typedef int (*fd_cu_launch_fn_t)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned smem, void *stream, void **params, void **extra);

static fd_cu_launch_fn_t launch_lookup(void)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
#if CUDART_VERSION >= 12050
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, 12000, cudaEnableDefault, &q);
#else
    cudaError_t e = cudaGetDriverEntryPoint("cuLaunchKernel", &fn, cudaEnableDefault, &q);
#endif
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError(); /* the lookup's failure is not the caller's error */
        return NULL;
    }
    return (fd_cu_launch_fn_t)fn;
}

extern "C" cudaError_t fd_cuda_launch(const void *func, void **fcache, int dev, dim3 grid, dim3 block,
                                      unsigned smem, cudaStream_t s, void **args)
{
    static const fd_cu_launch_fn_t launch = launch_lookup();
    if (launch != NULL && (dev >= 0 || cudaGetDevice(&dev) == cudaSuccess) && dev >= 0 && dev < FD_CUDA_FCACHE) {
        void *f = __atomic_load_n(&fcache[dev], __ATOMIC_ACQUIRE);
        if (f == NULL) {
            cudaFunction_t cf = NULL;
            if (cudaGetFuncBySymbol(&cf, func) == cudaSuccess && cf != NULL) {
                f = (void *)cf;
                __atomic_store_n(&fcache[dev], f, __ATOMIC_RELEASE); /* racing stores agree */
            } else {
                (void)cudaGetLastError();
            }
        }
        if (f != NULL && launch(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, (void *)s, args,
                                NULL) == 0 /* CUDA_SUCCESS */)
            return cudaSuccess;
    }
    return cudaLaunchKernel(func, grid, block, args, smem, s);
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

/* The calling thread's current device (-1 when there is none): the selection memo's key
 * (src/core/dispatch.c), since the cuda rows' answers depend on the device's architecture. */
extern "C" int fd_cuda_current_device(void)
{
    int dev = -1;
    return cudaGetDevice(&dev) == cudaSuccess ? dev : -1;
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

static cudnnStatus_t time_check(cudaError_t err, const char *what)
{
    return fd_cuda_check(err, __FILE__, __LINE__, "%s", what);
}

/* Find's timer (src/core/backend.h): a warm-up run, then reps runs between events on the
 * handle's stream; the median. Find may create events (it allocates scratch too); compute calls
 * never do. */
extern "C" cudnnStatus_t fd_cuda_time(cudnnHandle_t handle, cudnnStatus_t (*fn)(void *ctx),
                                      void *ctx, int reps, float *ms)
{
    enum { MAX_REPS = 15 };
    reps = reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
    cudaEvent_t ev[MAX_REPS + 1] = {};
    float t[MAX_REPS];
    cudnnStatus_t st = fn(ctx);
    for (int i = 0; st == CUDNN_STATUS_SUCCESS && i <= reps; i++)
        st = time_check(cudaEventCreate(&ev[i]), "creating Find's timing events");
    if (st == CUDNN_STATUS_SUCCESS)
        st = time_check(cudaEventRecord(ev[0], handle->stream), "recording an event");
    for (int i = 0; st == CUDNN_STATUS_SUCCESS && i < reps; i++) {
        st = fn(ctx);
        if (st == CUDNN_STATUS_SUCCESS)
            st = time_check(cudaEventRecord(ev[i + 1], handle->stream),
                                      "recording an event");
    }
    if (st == CUDNN_STATUS_SUCCESS)
        st = time_check(cudaEventSynchronize(ev[reps]), "waiting for Find's runs");
    for (int i = 0; st == CUDNN_STATUS_SUCCESS && i < reps; i++)
        st = time_check(cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]),
                                  "reading Find's timing events");
    for (int i = 0; i <= reps; i++)
        if (ev[i] != NULL)
            cudaEventDestroy(ev[i]);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    for (int i = 1; i < reps; i++) /* insertion sort of a handful */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            float v = t[j];
            t[j] = t[j - 1], t[j - 1] = v;
        }
    *ms = t[reps / 2];
    return CUDNN_STATUS_SUCCESS;
}

/* The tuning cache's device identity (src/core/tunecache.h): what Find's times depend on, the
 * device's name, compute capability and SM count ("NVIDIA H200|sm_90|sms=132"); 0 when the
 * runtime cannot say. */
extern "C" int fd_tunecache_cuda_identity(cudnnHandle_t handle, char *buf, size_t size)
{
    (void)handle; /* the handle belongs to the thread's current device, as in cuDNN */
    int dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    snprintf(buf, size, "%s|sm_%d%d|sms=%d", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount);
    return 1;
}

/* The handle's scratch (src/core/fd.h): allocated here, with the handle, so that no compute
 * call allocates. A device that cannot spare it still gets a handle: the scratch stays NULL and
 * the kernels that would use it take their no-workspace paths (a warning says so). */
extern "C" cudnnStatus_t fd_cuda_handle_init(cudnnHandle_t handle, size_t scratch_bytes)
{
    cudaEvent_t ev;
    cudaError_t err = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (err != cudaSuccess) {
        cudaGetLastError();
        FD_CUDA_CHECK(err, "creating the handle's ordering event");
    }
    void *p = NULL;
    err = cudaMalloc(&p, scratch_bytes);
    if (err != cudaSuccess) {
        cudaGetLastError();
        fd_log_warning("cudnnCreate: cudaMalloc of the handle's %zu-byte scratch failed (%s); calls "
                       "without a workspace keep their single-block paths", scratch_bytes, cudaGetErrorName(err));
        p = NULL, scratch_bytes = 0;
    }
    handle->scratch = p;
    handle->scratch_size = scratch_bytes;
    handle->scratch_event = (void *)ev;
    /* the one-launch split-K counters (splitk.cuh): zeroed here, once; every call leaves them
     * at 0. Without them the backward filter rows launch their reduce kernels. */
    void *ctr = NULL;
    const size_t ctr_bytes = (size_t)FD_SPLITK_SLOTS * FD_SPLITK_TILES * sizeof(unsigned);
    err = cudaMalloc(&ctr, ctr_bytes);
    if (err == cudaSuccess)
        err = cudaMemsetAsync(ctr, 0, ctr_bytes, 0);
    if (err == cudaSuccess) /* zero before any stream, blocking or not, can use them */
        err = cudaStreamSynchronize(0);
    if (err != cudaSuccess) {
        cudaGetLastError();
        if (ctr != NULL)
            cudaFree(ctr);
        fd_log_warning("cudnnCreate: the %zu bytes of split-K counters failed (%s); backward "
                       "filter calls keep their two launches", ctr_bytes, cudaGetErrorName(err));
        ctr = NULL;
    }
    handle->splitk_ctr = (unsigned *)ctr;
    handle->splitk_next = 0;
    return CUDNN_STATUS_SUCCESS;
}

/* FREEDNN_SPLITK_FUSED (splitk.cuh): 0 never, 2 always, else the byte rule; once per process. */
static int splitk_mode_env(void)
{
    const char *e = getenv("FREEDNN_SPLITK_FUSED");
    return e == NULL ? 1 : strcmp(e, "0") == 0 ? 0 : strcmp(e, "2") == 0 ? 2 : 1;
}

extern "C" unsigned *fd_cuda_splitk_counters(cudnnHandle_t handle, int64_t tiles, int splits,
                                             size_t tile_bytes, const void *workspace)
{
    static const int mode = splitk_mode_env();
    if (mode == 0 || handle->splitk_ctr == NULL || tiles < 1 || tiles > FD_SPLITK_TILES ||
        splits < 1 || ((uintptr_t)workspace % 16) != 0)
        return NULL;
    if (mode == 1 && (size_t)splits * tile_bytes > FD_SPLITK_FUSED_BYTES)
        return NULL;
    const unsigned slot =
        __atomic_fetch_add(&handle->splitk_next, 1u, __ATOMIC_RELAXED) % FD_SPLITK_SLOTS;
    return handle->splitk_ctr + (size_t)slot * FD_SPLITK_TILES;
}

extern "C" unsigned *fd_cuda_grid_counter(cudnnHandle_t handle)
{
    if (handle->splitk_ctr == NULL)
        return NULL;
    const unsigned slot =
        __atomic_fetch_add(&handle->splitk_next, 1u, __ATOMIC_RELAXED) % FD_SPLITK_SLOTS;
    return handle->splitk_ctr + (size_t)slot * FD_SPLITK_TILES + (FD_SPLITK_TILES - 1);
}

#define FD_PDL_MAX_DEV 64
extern "C" int fd_cuda_pdl_ok(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_PDL");
    static int cache[FD_PDL_MAX_DEV]; /* 0 unknown, 1 no, 2 yes */
    int dev = -1;
    if (!on || cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= FD_PDL_MAX_DEV) {
        (void)cudaGetLastError();
        return 0;
    }
    int v = __atomic_load_n(&cache[dev], __ATOMIC_ACQUIRE);
    if (v == 0) {
        int major = 0;
        v = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
                    major >= 9
                ? 2
                : 1;
        (void)cudaGetLastError();
        __atomic_store_n(&cache[dev], v, __ATOMIC_RELEASE);
    }
    return v == 2;
}

extern "C" void fd_cuda_handle_fini(cudnnHandle_t handle)
{
    if (handle->scratch != NULL)
        cudaFree(handle->scratch); /* waits for the work that may still use it */
    if (handle->scratch_event != NULL)
        cudaEventDestroy((cudaEvent_t)handle->scratch_event);
    handle->scratch = NULL, handle->scratch_size = 0, handle->scratch_event = NULL;
    if (handle->splitk_ctr != NULL)
        cudaFree(handle->splitk_ctr);
    handle->splitk_ctr = NULL;
}

/* A new stream waits for what the handle queued on the old one (which may still be using the
 * scratch); recorded and waited on the device, so the host never blocks. */
extern "C" cudnnStatus_t fd_cuda_set_stream(cudnnHandle_t handle, cudaStream_t stream)
{
    if (stream != handle->stream && handle->scratch != NULL && handle->scratch_event != NULL) {
        cudaEvent_t ev = (cudaEvent_t)handle->scratch_event;
        FD_CUDA_CHECK(cudaEventRecord(ev, handle->stream), "recording the old stream %p's work on a stream change",
                      (void *)handle->stream);
        FD_CUDA_CHECK(cudaStreamWaitEvent(stream, ev, 0), "ordering stream %p after the old stream %p",
                      (void *)stream, (void *)handle->stream);
    }
    handle->stream = stream;
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
