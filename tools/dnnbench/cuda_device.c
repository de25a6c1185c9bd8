/* SPDX-License-Identifier: MIT */
/*
 * cuda_device.c - the cuda device of dnnbench (docs/dnnbench.md, "The cuda device"): buffers
 * from cudaMalloc, copies with cudaMemcpy, fills with cudaMemset, streams, a timer of CUDA
 * events on the stream of the handle that makes the call, and CUDA-graph capture and replay
 * (--graph).
 *
 * The CUDA runtime is loaded with dlopen (libcudart.so.13, .12, then libcudart.so) on first use,
 * so dnnbench builds and runs on machines without the toolkit and its CPU build is unchanged.
 * Device pointers are valid across runtimes: ours (possibly linked statically into
 * libfreednn), this one and the one inside a --vs library all use the device's primary context.
 *
 * Timing of one call: cudaEventRecord(e0) on the stream, the host clock, the call, the host
 * clock again (host_ms: the call's host overhead, no synchronisation), cudaEventRecord(e1),
 * cudaEventSynchronize(e1), cudaEventElapsedTime(e0, e1) (stop_ms: the device time).
 *
 * Streams: dnnbench creates one blocking stream per handle (cudaStreamCreate) and gives it to
 * the library with cudnnSetStream, so the two libraries of --vs never share a stream and a
 * timed event pair sees only its own library's work; the copies and fills (cudaMemcpy,
 * cudaMemset on the legacy default stream) are ordered against those streams by the legacy
 * stream's implicit synchronisation, and util.c waits for the whole device (sync) before each
 * sample. Streams are driver objects (CUstream), so a stream created by this runtime is valid
 * in the runtime linked into libfreednn and in the one NVIDIA's cuDNN uses.
 *
 * Graphs: cudaStreamBeginCapture in cudaStreamCaptureModeThreadLocal (other threads of the
 * process, such as a library's own, are not disturbed; an unsafe call of this thread, for
 * example a synchronous cudaMemcpy inside a library call, invalidates the capture), the calls,
 * cudaStreamEndCapture, cudaGraphInstantiateWithFlags (the entry point that has the same
 * signature in CUDA 11.4 to 13), cudaGraphLaunch between two events. A failed capture is ended
 * and its error cleared (cudaGetLastError), so that the plain launches can go on.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dnnbench.h"

typedef int cu_err_t; /* cudaError_t: 0 is cudaSuccess */
typedef void *cu_event_t;
typedef void *cu_stream_t;
typedef void *cu_graph_t;
typedef void *cu_graph_exec_t;

static struct {
    int tried, ok;
    char why[256];
    void *dl;
    cu_err_t (*Malloc)(void **, size_t);
    cu_err_t (*Free)(void *);
    cu_err_t (*Memcpy)(void *, const void *, size_t, int);
    cu_err_t (*Memset)(void *, int, size_t);
    cu_err_t (*MemsetAsync)(void *, int, size_t, cu_stream_t);
    cu_err_t (*EventCreate)(cu_event_t *);
    cu_err_t (*EventRecord)(cu_event_t, cu_stream_t);
    cu_err_t (*EventSynchronize)(cu_event_t);
    cu_err_t (*EventElapsedTime)(float *, cu_event_t, cu_event_t);
    cu_err_t (*DeviceGetAttribute)(int *, int, int);
    cu_err_t (*GetDevice)(int *);
    cu_err_t (*GetDeviceCount)(int *);
    cu_err_t (*DeviceSynchronize)(void);
    cu_err_t (*StreamCreate)(cu_stream_t *);
    cu_err_t (*StreamDestroy)(cu_stream_t);
    cu_err_t (*StreamBeginCapture)(cu_stream_t, int);
    cu_err_t (*StreamEndCapture)(cu_stream_t, cu_graph_t *);
    cu_err_t (*GraphInstantiateWithFlags)(cu_graph_exec_t *, cu_graph_t, unsigned long long);
    cu_err_t (*GraphLaunch)(cu_graph_exec_t, cu_stream_t);
    cu_err_t (*GraphDestroy)(cu_graph_t);
    cu_err_t (*GraphExecDestroy)(cu_graph_exec_t);
    cu_err_t (*GetLastError)(void);
    const char *(*GetErrorString)(cu_err_t);
    cu_event_t e0, e1;
    double t0, host;
    void *flush_buf;
    size_t flush_size;
} cu;

enum {
    CU_MEMCPY_H2D = 1,
    CU_MEMCPY_D2H = 2,
    CU_ATTR_L2_CACHE_SIZE = 89,
    CU_CAPTURE_THREAD_LOCAL = 1 /* cudaStreamCaptureModeThreadLocal */
};

static void cu_report(const char *what, cu_err_t e)
{
    static int reported;
    if (e != 0 && reported++ < 5)
        fprintf(stderr, "dnnbench: cuda device: %s: %s\n", what,
                cu.GetErrorString ? cu.GetErrorString(e) : "error");
}

static void *cu_alloc(size_t bytes)
{
    void *p = NULL;
    cu_err_t e = cu.Malloc(&p, bytes ? bytes : 1);
    return e == 0 ? p : NULL;
}

static void cu_release(void *p)
{
    if (p != NULL)
        cu_report("cudaFree", cu.Free(p));
}

static void cu_upload(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        cu_report("cudaMemcpy host to device", cu.Memcpy(dst, src, bytes, CU_MEMCPY_H2D));
}

static void cu_download(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        cu_report("cudaMemcpy device to host", cu.Memcpy(dst, src, bytes, CU_MEMCPY_D2H));
}

static void cu_set(void *dst, int byte, size_t bytes)
{
    if (bytes)
        cu_report("cudaMemset", cu.Memset(dst, byte, bytes));
}

static void cu_start(void *stream)
{
    cu_report("cudaEventRecord", cu.EventRecord(cu.e0, stream));
    cu.t0 = dnb_now_ms();
}

static double cu_stop(void *stream)
{
    cu.host = dnb_now_ms() - cu.t0;
    float ms = 0.0f;
    cu_report("cudaEventRecord", cu.EventRecord(cu.e1, stream));
    cu_report("cudaEventSynchronize", cu.EventSynchronize(cu.e1));
    cu_report("cudaEventElapsedTime", cu.EventElapsedTime(&ms, cu.e0, cu.e1));
    return (double)ms;
}

static double cu_host(void)
{
    return cu.host;
}

/* 2 x L2 of writes on the stream, before the next sample's first event. */
static void cu_flush(size_t bytes, void *stream)
{
    if (cu.flush_size < bytes) {
        cu_release(cu.flush_buf);
        cu.flush_buf = cu_alloc(bytes);
        cu.flush_size = cu.flush_buf ? bytes : 0;
    }
    if (cu.flush_buf)
        cu_report("cudaMemsetAsync", cu.MemsetAsync(cu.flush_buf, 0x11, cu.flush_size, stream));
}

static void *cu_stream_create(char *why, size_t why_size)
{
    cu_stream_t s = NULL;
    cu_err_t e = cu.StreamCreate(&s);
    if (e != 0) {
        snprintf(why, why_size, "cudaStreamCreate: %s", cu.GetErrorString(e));
        return NULL;
    }
    return s;
}

static void cu_stream_destroy(void *stream)
{
    if (stream != NULL)
        cu_report("cudaStreamDestroy", cu.StreamDestroy(stream));
}

static void cu_sync(void)
{
    cu_report("cudaDeviceSynchronize", cu.DeviceSynchronize());
}

static int cu_graph_begin(void *stream, char *why, size_t why_size)
{
    cu_err_t e = cu.StreamBeginCapture(stream, CU_CAPTURE_THREAD_LOCAL);
    if (e != 0) {
        (void)cu.GetLastError();
        snprintf(why, why_size, "cudaStreamBeginCapture: %s", cu.GetErrorString(e));
        return -1;
    }
    return 0;
}

/* Ends the capture in any case (a capture left open would break every later call on the
 * stream); instantiates it when the calls succeeded. */
static void *cu_graph_end(void *stream, int ok, char *why, size_t why_size)
{
    cu_graph_t g = NULL;
    cu_graph_exec_t x = NULL;
    cu_err_t e = cu.StreamEndCapture(stream, &g);
    if (e == 0 && ok && g != NULL) {
        e = cu.GraphInstantiateWithFlags(&x, g, 0);
        if (e != 0) {
            snprintf(why, why_size, "cudaGraphInstantiate: %s", cu.GetErrorString(e));
            x = NULL;
        }
    } else if (e != 0) {
        snprintf(why, why_size, "cudaStreamEndCapture: %s", cu.GetErrorString(e));
    }
    if (g != NULL)
        cu_report("cudaGraphDestroy", cu.GraphDestroy(g));
    if (x == NULL)
        (void)cu.GetLastError(); /* capture errors are not sticky; clear them for what follows */
    return x;
}

static double cu_graph_launch_ms(void *exec, void *stream)
{
    float ms = 0.0f;
    cu_report("cudaEventRecord", cu.EventRecord(cu.e0, stream));
    cu_err_t e = cu.GraphLaunch(exec, stream);
    cu_report("cudaGraphLaunch", e);
    cu_report("cudaEventRecord", cu.EventRecord(cu.e1, stream));
    cu_report("cudaEventSynchronize", cu.EventSynchronize(cu.e1));
    cu_report("cudaEventElapsedTime", cu.EventElapsedTime(&ms, cu.e0, cu.e1));
    return e == 0 ? (double)ms : -1.0;
}

static void cu_graph_destroy(void *exec)
{
    if (exec != NULL)
        cu_report("cudaGraphExecDestroy", cu.GraphExecDestroy(exec));
}

static dnb_device_t cuda_device = {
    .name = "cuda",
    .alloc = cu_alloc,
    .release = cu_release,
    .upload = cu_upload,
    .download = cu_download,
    .set_bytes = cu_set,
    .start = cu_start,
    .stop_ms = cu_stop,
    .host_ms = cu_host,
    .flush = cu_flush,
    .stream_create = cu_stream_create,
    .stream_destroy = cu_stream_destroy,
    .sync = cu_sync,
    .graph_begin = cu_graph_begin,
    .graph_end = cu_graph_end,
    .graph_launch_ms = cu_graph_launch_ms,
    .graph_destroy = cu_graph_destroy,
};

static int cu_load(void)
{
    static const char *const names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && cu.dl == NULL; i++)
        cu.dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (cu.dl == NULL) {
        snprintf(cu.why, sizeof cu.why,
                 "the cuda device needs the CUDA runtime, and no libcudart.so.13, .12 or "
                 "libcudart.so could be loaded (%s)",
                 dlerror());
        return -1;
    }
#define CU_SYM(field, name)                                                                        \
    {                                                                                              \
        void *s = dlsym(cu.dl, name);                                                              \
        if (s == NULL) {                                                                           \
            snprintf(cu.why, sizeof cu.why, "libcudart has no %s", name);                          \
            return -1;                                                                             \
        }                                                                                          \
        memcpy(&cu.field, &s, sizeof cu.field);                                                    \
    }
    CU_SYM(Malloc, "cudaMalloc")
    CU_SYM(Free, "cudaFree")
    CU_SYM(Memcpy, "cudaMemcpy")
    CU_SYM(Memset, "cudaMemset")
    CU_SYM(MemsetAsync, "cudaMemsetAsync")
    CU_SYM(EventCreate, "cudaEventCreate")
    CU_SYM(EventRecord, "cudaEventRecord")
    CU_SYM(EventSynchronize, "cudaEventSynchronize")
    CU_SYM(EventElapsedTime, "cudaEventElapsedTime")
    CU_SYM(DeviceGetAttribute, "cudaDeviceGetAttribute")
    CU_SYM(GetDevice, "cudaGetDevice")
    CU_SYM(GetDeviceCount, "cudaGetDeviceCount")
    CU_SYM(DeviceSynchronize, "cudaDeviceSynchronize")
    CU_SYM(StreamCreate, "cudaStreamCreate")
    CU_SYM(StreamDestroy, "cudaStreamDestroy")
    CU_SYM(StreamBeginCapture, "cudaStreamBeginCapture")
    CU_SYM(StreamEndCapture, "cudaStreamEndCapture")
    CU_SYM(GraphInstantiateWithFlags, "cudaGraphInstantiateWithFlags")
    CU_SYM(GraphLaunch, "cudaGraphLaunch")
    CU_SYM(GraphDestroy, "cudaGraphDestroy")
    CU_SYM(GraphExecDestroy, "cudaGraphExecDestroy")
    CU_SYM(GetLastError, "cudaGetLastError")
    CU_SYM(GetErrorString, "cudaGetErrorString")
#undef CU_SYM
    int count = 0, dev = 0, l2 = 0;
    cu_err_t e = cu.GetDeviceCount(&count);
    if (e != 0 || count < 1) {
        snprintf(cu.why, sizeof cu.why, "the CUDA runtime sees no GPU (%s)",
                 e ? cu.GetErrorString(e) : "0 devices");
        return -1;
    }
    if ((e = cu.GetDevice(&dev)) != 0 || (e = cu.EventCreate(&cu.e0)) != 0 ||
        (e = cu.EventCreate(&cu.e1)) != 0) {
        snprintf(cu.why, sizeof cu.why, "CUDA events: %s", cu.GetErrorString(e));
        return -1;
    }
    if (cu.DeviceGetAttribute(&l2, CU_ATTR_L2_CACHE_SIZE, dev) != 0 || l2 <= 0)
        l2 = 50 << 20;
    cuda_device.cache_bytes = (size_t)l2;
    return 0;
}

const dnb_device_t *dnb_cuda_device(char *why, size_t why_size)
{
    if (!cu.tried) {
        cu.tried = 1;
        cu.ok = cu_load() == 0;
    }
    if (!cu.ok) {
        snprintf(why, why_size, "%s", cu.why);
        return NULL;
    }
    return &cuda_device;
}
