/* SPDX-License-Identifier: MIT */
/*
 * errquery.cu - the stream side of cudnnQueryRuntimeError on a cuda handle (src/api/handle.c,
 * through fd_backend_stream_state in src/core/backend.c):
 * whether the handle's stream has drained (CUDNN_ERRQUERY_NONBLOCKING, cudaStreamQuery: never
 * waits) and waiting for it (CUDNN_ERRQUERY_BLOCKING, cudaStreamSynchronize).
 *
 * A failed query or wait is CUDNN_STATUS_INTERNAL_ERROR, the status cuDNN documents for
 * cudnnQueryRuntimeError when "a stream blocking synchronization or a non-blocking stream query
 * failed", with the CUDA error in the reason. cudaErrorNotReady is not an error: it is cleared
 * from the runtime's last-error slot so the caller's next cudaGetLastError does not see it.
 */
#include "fd_cuda.cuh"

extern "C" cudnnStatus_t fd_cuda_stream_state(cudnnHandle_t handle, int wait, int *idle)
{
    cudaError_t err = wait ? cudaStreamSynchronize(handle->stream) : cudaStreamQuery(handle->stream);
    if (err == cudaErrorNotReady) {
        (void)cudaGetLastError();
        *idle = 0;
        return CUDNN_STATUS_SUCCESS;
    }
    if (err != cudaSuccess)
        return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,
                        "%s the handle's stream %p: CUDA error %d %s (%s)",
                        wait ? "waiting for" : "querying", (void *)handle->stream, (int)err,
                        cudaGetErrorName(err), cudaGetErrorString(err));
    *idle = 1;
    return CUDNN_STATUS_SUCCESS;
}
