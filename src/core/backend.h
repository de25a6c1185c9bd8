/* SPDX-License-Identifier: MIT */
/*
 * backend.h - which backends this build has and whether they can run on this machine.
 * The cuda backend registers itself through fd_cuda_probe when the library is built with
 * CUDA (FD_HAVE_CUDA); generic code sees only these answers, never CUDA headers.
 */
#ifndef FD_CORE_BACKEND_H_
#define FD_CORE_BACKEND_H_

#include "fd.h"

/* 1 when `b` can run here; otherwise 0 and a sentence saying why in `why` (if not NULL). */
int fd_backend_available(fd_backend_t b, char *why, size_t why_size);

/* CUDART_VERSION the library was built with, 0 for a build without CUDA. */
size_t fd_backend_cudart_version(void);

#endif /* FD_CORE_BACKEND_H_ */
