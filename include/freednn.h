/* SPDX-License-Identifier: MIT */
/*
 * freednn.h - freednn's own extensions to the cuDNN classic API.
 *
 * Everything here carries the `freednn` prefix; nothing in cudnn.h changes meaning when this
 * header is included. Programs that use only cudnn.h never need it.
 */
#ifndef FREEDNN_H_
#define FREEDNN_H_

#include "cudnn.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* The compute backends a handle can be bound to (DESIGN D3). Data pointers are host pointers
 * on REF and CPU, device pointers on CUDA. */
typedef enum {
    FREEDNN_BACKEND_DEFAULT = -1, /* what cudnnCreate picks: FREEDNN_BACKEND, else cuda, else cpu */
    FREEDNN_BACKEND_REF = 0,      /* plain C reference, double accumulation: the test oracle */
    FREEDNN_BACKEND_CPU = 1,      /* fast host code (falls through to ref where it has no kernel) */
    FREEDNN_BACKEND_CUDA = 2,     /* CUDA kernels, sm_80 and later */
} freednnBackend_t;

/* Like cudnnCreate, but bound to `backend`. Asking for a backend this machine cannot run
 * returns CUDNN_STATUS_NOT_INITIALIZED with the reason in cudnnGetLastErrorString. */
cudnnStatus_t CUDNNWINAPI freednnCreateWithBackend(cudnnHandle_t *handle, freednnBackend_t backend);

/* The backend `handle` is bound to. */
cudnnStatus_t CUDNNWINAPI freednnGetBackend(cudnnHandle_t handle, freednnBackend_t *backend);

/* "ref", "cpu", "cuda", or NULL for a value outside the enum. */
const char *CUDNNWINAPI freednnGetBackendName(freednnBackend_t backend);

/* freednn's own version, FREEDNN_MAJOR * 10000 + FREEDNN_MINOR * 100 + FREEDNN_PATCHLEVEL
 * (cudnnGetVersion reports the cuDNN version whose interface is being served). */
size_t CUDNNWINAPI freednnGetVersion(void);

#if defined(__cplusplus)
}
#endif

#endif /* FREEDNN_H_ */
