/* SPDX-License-Identifier: MIT */
/*
 * handle.c - cudnnCreate/Destroy, streams, versions, error strings, runtime-error query and
 * freednn's backend extensions (DESIGN D3: a handle is bound to one backend at creation).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/fd.h"
#include "../core/backend.h"
#include "../core/conv.h"
#include "../core/tunecache.h"

static const char *const backend_names[FD_BACKEND_COUNT] = {"ref", "cpu", "cuda"};
_Static_assert(sizeof backend_names / sizeof backend_names[0] == FD_BACKEND_COUNT,
               "one name per backend");

const char *CUDNNWINAPI freednnGetBackendName(freednnBackend_t backend)
{
    if ((int)backend < 0 || (int)backend >= FD_BACKEND_COUNT)
        return NULL;
    return backend_names[backend];
}

/* FREEDNN_BACKEND if set, else cuda when it can run, else cpu. */
static cudnnStatus_t pick_default_backend(fd_backend_t *out)
{
    const char *env = getenv("FREEDNN_BACKEND");
    if (env != NULL && *env != '\0') {
        for (int b = 0; b < FD_BACKEND_COUNT; b++) {
            if (strcmp(env, backend_names[b]) == 0) {
                *out = (fd_backend_t)b;
                return CUDNN_STATUS_SUCCESS;
            }
        }
        FD_CHECK(0, CUDNN_STATUS_BAD_PARAM, "FREEDNN_BACKEND=%s is not one of ref, cpu, cuda", env);
    }
    *out = fd_backend_available(FD_BACKEND_CUDA, NULL, 0) ? FD_BACKEND_CUDA : FD_BACKEND_CPU;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t create_handle(cudnnHandle_t *handle, fd_backend_t backend)
{
    char why[256];
    FD_CHECK(fd_backend_available(backend, why, sizeof why), CUDNN_STATUS_NOT_INITIALIZED,
             "backend %s cannot run here: %s", backend_names[backend], why);
    struct cudnnContext *h = calloc(1, sizeof *h);
    FD_CHECK(h != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate %zu bytes for the handle", sizeof *h);
    h->magic = FD_MAGIC_HANDLE;
    h->backend = backend;
    h->stream = NULL;
    h->runtime_error = CUDNN_STATUS_SUCCESS;
    cudnnStatus_t st = fd_conv_plans_create(h);
    if (st != CUDNN_STATUS_SUCCESS) {
        free(h);
        return st;
    }
    st = fd_backend_handle_init(h);
    if (st != CUDNN_STATUS_SUCCESS) {
        fd_conv_plans_free(h);
        free(h);
        return st;
    }
    *handle = h;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnCreate(cudnnHandle_t *handle)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(handle);
    fd_backend_t backend;
    FD_TRY(pick_default_backend(&backend));
    return create_handle(handle, backend);
}

cudnnStatus_t CUDNNWINAPI freednnCreateWithBackend(cudnnHandle_t *handle, freednnBackend_t backend)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(handle);
    if (backend == FREEDNN_BACKEND_DEFAULT) {
        fd_backend_t b;
        FD_TRY(pick_default_backend(&b));
        return create_handle(handle, b);
    }
    FD_CHECK((int)backend >= 0 && (int)backend < FD_BACKEND_COUNT, CUDNN_STATUS_BAD_PARAM,
             "backend %d is not a freednnBackend_t value (ref 0, cpu 1, cuda 2, default -1)",
             (int)backend);
    return create_handle(handle, (fd_backend_t)backend);
}

cudnnStatus_t CUDNNWINAPI cudnnDestroy(cudnnHandle_t handle)
{
    FD_API(NULL);
    if (handle == NULL) /* cuDNN 9.19 answers SUCCESS here (contract §4.6) */
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(fd_handle_check(handle));
    fd_tunecache_free(handle);
    fd_conv_plans_free(handle);
    fd_backend_handle_fini(handle);
    handle->magic = 0;
    free(handle);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_handle_check(cudnnHandle_t handle)
{
    FD_CHECK(handle != NULL, CUDNN_STATUS_BAD_PARAM, "handle is NULL");
    FD_CHECK(handle->magic == FD_MAGIC_HANDLE, CUDNN_STATUS_BAD_PARAM,
             "handle %p is not a live cudnnHandle_t (destroyed, or never created)", (void *)handle);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI freednnGetBackend(cudnnHandle_t handle, freednnBackend_t *backend)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(backend);
    *backend = (freednnBackend_t)handle->backend;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    return fd_backend_set_stream(handle, streamId);
}

cudnnStatus_t CUDNNWINAPI cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(streamId);
    *streamId = handle->stream;
    return CUDNN_STATUS_SUCCESS;
}

size_t CUDNNWINAPI cudnnGetVersion(void)
{
    return CUDNN_VERSION;
}

size_t CUDNNWINAPI freednnGetVersion(void)
{
    return FREEDNN_VERSION;
}

size_t CUDNNWINAPI cudnnGetMaxDeviceVersion(void)
{
    return CUDNN_MAX_DEVICE_VERSION;
}

size_t CUDNNWINAPI cudnnGetCudartVersion(void)
{
    return fd_backend_cudart_version();
}

cudnnStatus_t CUDNNWINAPI cudnnGetProperty(libraryPropertyType type, int *value)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(value);
    switch (type) {
    case MAJOR_VERSION:
        *value = CUDNN_MAJOR;
        return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION:
        *value = CUDNN_MINOR;
        return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL:
        *value = CUDNN_PATCHLEVEL;
        return CUDNN_STATUS_SUCCESS;
    default:
        return fd_error(CUDNN_STATUS_BAD_PARAM, __FILE__, __LINE__,
                        "type %d is not MAJOR_VERSION (0), MINOR_VERSION (1) or PATCH_LEVEL (2)", (int)type);
    }
}

const char *CUDNNWINAPI cudnnGetErrorString(cudnnStatus_t status)
{
    return fd_status_name(status);
}

cudnnStatus_t CUDNNWINAPI cudnnQueryRuntimeError(cudnnHandle_t handle, cudnnStatus_t *rstatus,
                                                 cudnnErrQueryMode_t mode, cudnnRuntimeTag_t *tag)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(rstatus);
    FD_CHECK(mode == CUDNN_ERRQUERY_RAWCODE || mode == CUDNN_ERRQUERY_NONBLOCKING ||
                 mode == CUDNN_ERRQUERY_BLOCKING,
             CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnErrQueryMode_t value", (int)mode);
    FD_CHECK(tag == NULL, CUDNN_STATUS_BAD_PARAM,
             "tag must be NULL (cuDNN reserves it for future use); got %p", (void *)tag);
    /* Host backends finish every call before returning, so the word is always final there. On
     * cuda the word can only be trusted once the stream has drained: NONBLOCKING asks the stream
     * without waiting and answers RUNTIME_IN_PROGRESS (word kept) while work is queued; BLOCKING
     * waits; RAWCODE reads the word as it is. No cuda kernel raises a runtime error today
     * (SPATIAL_PERSISTENT batch norm computes what SPATIAL does, without overflow), so the word
     * stays SUCCESS; the modes are honoured so that a kernel which does raise one only has to
     * set it. */
    if (mode != CUDNN_ERRQUERY_RAWCODE) {
        int idle = 1;
        FD_TRY(fd_backend_stream_state(handle, mode == CUDNN_ERRQUERY_BLOCKING, &idle));
        if (!idle) {
            *rstatus = CUDNN_STATUS_RUNTIME_IN_PROGRESS;
            return CUDNN_STATUS_SUCCESS;
        }
    }
    *rstatus = handle->runtime_error;
    handle->runtime_error = CUDNN_STATUS_SUCCESS;
    return CUDNN_STATUS_SUCCESS;
}

/* The version checks of cuDNN 9's sub-libraries: one library here, always consistent. */
cudnnStatus_t CUDNNWINAPI cudnnGraphVersionCheck(void)
{
    return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t CUDNNWINAPI cudnnOpsVersionCheck(void)
{
    return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t CUDNNWINAPI cudnnCnnVersionCheck(void)
{
    return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t CUDNNWINAPI cudnnAdvVersionCheck(void)
{
    return CUDNN_STATUS_SUCCESS;
}
