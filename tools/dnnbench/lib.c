/* SPDX-License-Identifier: MIT */
/*
 * lib.c - the libraries dnnbench drives and the devices their buffers live on.
 *
 * Our library is linked; its table holds the functions' addresses. A --vs library is loaded
 * with dlmopen(LM_ID_NEWLM): a namespace of its own, so a second copy of libfreednn (or
 * NVIDIA's libcudnn, whose symbols have the same names) never binds to ours, and every function
 * is looked up with dlsym into the same table. NVIDIA's libcudnn.so.9 numbers its statuses as
 * our cudnn.h does; older libraries (version < 9000) use 0..14 and are mapped here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dnnbench.h"

static dnb_lib_t ours_lib;

dnb_lib_t *dnb_lib_ours(void)
{
    if (ours_lib.cudnnCreate == NULL) {
        ours_lib.name = "freednn";
#define DNB_LIB_SET(f) ours_lib.f = f;
        DNB_LIB_FUNCS(DNB_LIB_SET)
#undef DNB_LIB_SET
        ours_lib.version = cudnnGetVersion();
    }
    return &ours_lib;
}

/* NVIDIA's libcudnn must share the CUDA driver (libcuda.so.1) with our cuda backend: device
 * pointers and streams belong to the driver's context, and a second copy of libcuda in a new
 * link-map namespace has contexts of its own. So a library whose file name starts with
 * "libcudnn" is loaded into the main namespace with RTLD_DEEPBIND (its own cudnn* symbols and
 * its dependencies' come before ours); any other (a freednn copy) with dlmopen(LM_ID_NEWLM).
 * DNB_VS_LOAD=dlmopen or =deepbind forces one way. */
static int vs_deepbind(const char *path)
{
    const char *force = getenv("DNB_VS_LOAD");
    if (force != NULL && strcmp(force, "dlmopen") == 0)
        return 0;
    if (force != NULL && strcmp(force, "deepbind") == 0)
        return 1;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libcudnn", 8) == 0;
}

dnb_lib_t *dnb_lib_load(const char *path, char *err, size_t err_size)
{
    void *dl = vs_deepbind(path) ? dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
                                 : dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
        snprintf(err, err_size, "cannot load %s: %s", path, dlerror());
        return NULL;
    }
    dnb_lib_t *lib = calloc(1, sizeof *lib);
    if (lib == NULL) {
        dlclose(dl);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    lib->name = path;
    lib->dl = dl;
    lib->deepbind = vs_deepbind(path);
    /* dlsym returns void *; the table's types come from our cudnn.h prototypes. */
#define DNB_LIB_SYM(f)                                                                             \
    {                                                                                              \
        void *sym = dlsym(dl, #f);                                                                 \
        memcpy(&lib->f, &sym, sizeof lib->f);                                                      \
    }
    DNB_LIB_FUNCS(DNB_LIB_SYM)
#undef DNB_LIB_SYM
    const char *missing = NULL;
#define DNB_LIB_REQ(f)                                                                             \
    if (lib->f == NULL && missing == NULL)                                                         \
        missing = #f;
    DNB_LIB_REQUIRED(DNB_LIB_REQ)
#undef DNB_LIB_REQ
    if (missing != NULL) {
        snprintf(err, err_size, "%s does not export %s; it is not a cuDNN-API library", path,
                 missing);
        dnb_lib_close(lib);
        return NULL;
    }
    lib->version = lib->cudnnGetVersion();
    return lib;
}

/* The library stays mapped: a copy in its own namespace brings its own OpenMP runtime, whose
 * idle worker threads outlive the calls that made them and would run unmapped code after a
 * dlclose (dnnbench crashed at exit that way in about half the runs once a cpu row used
 * OpenMP). The process ends soon after; the loader unmaps it then. */
void dnb_lib_close(dnb_lib_t *lib)
{
    if (lib == NULL || lib->dl == NULL)
        return;
    free(lib);
}

/* cuDNN 7 and 8 status codes (0..14) in cuDNN 9 numbering. */
static const cudnnStatus_t v7_status[] = {
    CUDNN_STATUS_SUCCESS,
    CUDNN_STATUS_NOT_INITIALIZED,
    CUDNN_STATUS_ALLOC_FAILED,
    CUDNN_STATUS_BAD_PARAM,
    CUDNN_STATUS_INTERNAL_ERROR,
    CUDNN_STATUS_INVALID_VALUE,
    CUDNN_STATUS_ARCH_MISMATCH,
    CUDNN_STATUS_MAPPING_ERROR,
    CUDNN_STATUS_EXECUTION_FAILED,
    CUDNN_STATUS_NOT_SUPPORTED,
    CUDNN_STATUS_LICENSE_ERROR,
    CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING,
    CUDNN_STATUS_RUNTIME_IN_PROGRESS,
    CUDNN_STATUS_RUNTIME_FP_OVERFLOW,
    CUDNN_STATUS_VERSION_MISMATCH,
};
_Static_assert(sizeof v7_status / sizeof v7_status[0] == 15, "cuDNN 7 has 15 status codes");

cudnnStatus_t dnb_status(const dnb_lib_t *lib, cudnnStatus_t raw)
{
    if (lib->version >= 9000 || (int)raw < 0 || (int)raw >= 15)
        return raw;
    return v7_status[raw];
}

int dnb_status_is_not_supported(cudnnStatus_t s)
{
    return CUDNN_STATUS_CATEGORY(s) == CUDNN_STATUS_NOT_SUPPORTED;
}

void dnb_lib_error(const dnb_lib_t *lib, cudnnStatus_t raw, char *buf, size_t size)
{
    char last[1024] = "";
    if (lib->cudnnGetLastErrorString != NULL)
        lib->cudnnGetLastErrorString(last, sizeof last);
    const char *name = lib->cudnnGetErrorString(raw);
    snprintf(buf, size, "%s%s%s", name ? name : "unknown status", last[0] ? ": " : "", last);
}

cudnnStatus_t dnb_lib_create(const dnb_lib_t *lib, int backend, cudnnHandle_t *h, int *backend_out)
{
    cudnnStatus_t st;
    if (backend >= 0) {
        if (lib->freednnCreateWithBackend == NULL)
            return CUDNN_STATUS_NOT_SUPPORTED; /* only freednn has backends to choose from */
        st = lib->freednnCreateWithBackend(h, (freednnBackend_t)backend);
    } else {
        st = lib->cudnnCreate(h);
    }
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    freednnBackend_t b = (freednnBackend_t)-1;
    if (lib->freednnGetBackend == NULL || lib->freednnGetBackend(*h, &b) != CUDNN_STATUS_SUCCESS)
        b = (freednnBackend_t)-1;
    *backend_out = (int)b;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the host device ---------------------------------------------------------------------- */

/* 64-byte aligned, as frameworks' CPU allocators give tensors: glibc's malloc puts large blocks
 * 16 bytes past a page, which splits every 64-byte vector access over two cache lines. */
static void *host_alloc(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 64, bytes ? bytes : 64) == 0 ? p : NULL;
}

static void host_release(void *p)
{
    free(p);
}

static void host_copy(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}

static void host_set(void *dst, int byte, size_t bytes)
{
    memset(dst, byte, bytes);
}

static double host_t0;

static void host_start(void *stream)
{
    (void)stream;
    host_t0 = dnb_now_ms();
}

static double host_stop(void *stream)
{
    (void)stream;
    return dnb_now_ms() - host_t0; /* ref and cpu calls complete before returning (D3) */
}

static dnb_device_t host_device = {
    .name = "host",
    .alloc = host_alloc,
    .release = host_release,
    .upload = host_copy,
    .download = host_copy,
    .set_bytes = host_set,
    .start = host_start,
    .stop_ms = host_stop,
};

const dnb_device_t *dnb_device_for(int backend, char *why, size_t why_size)
{
    if (backend == FREEDNN_BACKEND_REF || backend == FREEDNN_BACKEND_CPU) {
        if (host_device.cache_bytes == 0) {
            long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
            host_device.cache_bytes = l3 > 0 ? (size_t)l3 : l2 > 0 ? (size_t)l2 : (size_t)32 << 20;
        }
        return &host_device;
    }
    /* A cuda handle, or a library that is not freednn (NVIDIA's cuDNN), takes device pointers
     * and is timed with CUDA events on its stream (one that dnnbench creates per handle). */
    if (backend == FREEDNN_BACKEND_CUDA || backend < 0)
        return dnb_cuda_device(why, why_size);
    snprintf(why, why_size, "backend %d has no dnnbench device", backend);
    return NULL;
}
