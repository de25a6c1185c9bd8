/* SPDX-License-Identifier: MIT */
/*
 * trace.c - NVTX ranges around every public call (FD_API in fd.h), so Nsight Systems and Nsight
 * Compute timelines show "cudnnConvolutionForward" with its kernels nested under it.
 *
 * Decisions: NVTX v3 is header-only (the toolkit's nvtx3/nvToolsExt.h); it loads a tool's
 * injection library named by NVTX_INJECTION64_PATH on the first NVTX call and turns every call
 * into a no-op when there is none. Compiled only where the build has the cuda backend and the
 * header (FD_HAVE_NVTX, cmake/cuda.cmake); elsewhere FD_API has no range at all. One domain,
 * "freednn", created on first use: with no tool attached its handle is NULL and push/pop are one
 * predictable branch each. With a tool, each function's name is registered once (the per-call
 * site slot caches the handle) so the tool sees a string id rather than a copied string.
 */
#include "fd.h"

#if defined(FD_HAVE_NVTX)
#include <pthread.h>

#include <nvtx3/nvToolsExt.h>

static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static nvtxDomainHandle_t trace_domain;

/* A site whose registration the tool declined: use the ASCII name from then on. */
#define TRACE_SITE_ASCII ((void *)&trace_domain)

static void trace_init(void)
{
    trace_domain = nvtxDomainCreateA("freednn");
}

void *fd_trace_push(const char *function, void **site)
{
    pthread_once(&trace_once, trace_init);
    if (trace_domain == NULL) /* no tool: NVTX is all no-ops, skip building the attributes */
        return NULL;
    void *name = __atomic_load_n(site, __ATOMIC_ACQUIRE);
    if (name == NULL) {
        /* Two threads may both register: the tool hands out one id per string, or two
         * equivalent ones; either way the slot ends up valid. */
        name = (void *)nvtxDomainRegisterStringA(trace_domain, function);
        if (name == NULL)
            name = TRACE_SITE_ASCII;
        __atomic_store_n(site, name, __ATOMIC_RELEASE);
    }
    nvtxEventAttributes_t attr = {0};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    if (name == TRACE_SITE_ASCII) {
        attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
        attr.message.ascii = function;
    } else {
        attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        attr.message.registered = (nvtxStringHandle_t)name;
    }
    nvtxDomainRangePushEx(trace_domain, &attr);
    return trace_domain;
}

void fd_trace_pop(void **range)
{
    if (*range != NULL)
        nvtxDomainRangePop((nvtxDomainHandle_t)*range);
}
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int fd_trace_unused_t;
#endif
