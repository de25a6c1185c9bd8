/* SPDX-License-Identifier: MIT */
/*
 * backend.c - backend availability. ref and cpu always run; cuda needs a build with CUDA and
 * a device the runtime can use (src/cuda/probe.cu answers that when it is compiled in).
 */
#include <stdio.h>

#include "backend.h"

#if defined(FD_HAVE_CUDA)
int fd_cuda_probe(char *why, size_t why_size); /* src/cuda/probe.cu */
size_t fd_cuda_runtime_version(void);
#endif

int fd_backend_available(fd_backend_t b, char *why, size_t why_size)
{
    switch (b) {
    case FD_BACKEND_REF:
    case FD_BACKEND_CPU:
        return 1;
    case FD_BACKEND_CUDA:
#if defined(FD_HAVE_CUDA)
        return fd_cuda_probe(why, why_size);
#else
        if (why != NULL)
            snprintf(why, why_size, "this libfreednn was built without CUDA (configure with "
                                    "-DFREEDNN_CUDA=ON on a machine with nvcc)");
        return 0;
#endif
    default:
        if (why != NULL)
            snprintf(why, why_size, "%d is not a backend", (int)b);
        return 0;
    }
}

size_t fd_backend_cudart_version(void)
{
#if defined(FD_HAVE_CUDA)
    return fd_cuda_runtime_version();
#else
    return 0;
#endif
}
