/* SPDX-License-Identifier: MIT */
/*
 * fd_cuda.cuh - what every .cu file of the cuda backend shares: the library's C headers seen
 * from CUDA C++, and the error path for CUDA runtime calls and kernel launches.
 *
 * Every runtime call and every launch is checked: FD_CUDA_CHECK(err, "what %d", ...) turns a
 * CUDA error into CUDNN_STATUS_EXECUTION_FAILED_CUDART with the runtime's error name and text
 * (recorded through fd_error, so cudnnGetLastErrorString shows it); FD_CUDA_LAUNCHED checks
 * cudaGetLastError right after a launch. Compute calls never synchronise: an error of a
 * kernel that already started shows up at the caller's next synchronisation, as in cuDNN.
 */
#ifndef FD_CUDA_FD_CUDA_CUH_
#define FD_CUDA_FD_CUDA_CUH_

#include <cuda_runtime.h>

/* The core headers are C11; their one C-only keyword has a C++11 twin. */
#if !defined(_Static_assert)
#define _Static_assert static_assert
#endif
extern "C" {
#include "../core/backend.h"
#include "../core/conv.h"
#include "../core/op.h"
}

#define FD_CUDA_BLOCK 256 /* threads per block of the simple kernels */

/* SUCCESS, or the error recorded with file:line, `what` and the CUDA error's name and text. */
extern "C" cudnnStatus_t fd_cuda_check(cudaError_t err, const char *file, int line,
                                       const char *what_fmt, ...) FD_PRINTF(4, 5);

#define FD_CUDA_CHECK(err, ...)                                                                \
    do {                                                                                       \
        cudaError_t fd_cuda_err_ = (err);                                                      \
        if (fd_cuda_err_ != cudaSuccess)                                                       \
            return fd_cuda_check(fd_cuda_err_, __FILE__, __LINE__, __VA_ARGS__);               \
    } while (0)

/* After every <<<...>>>: a bad configuration or a sticky earlier fault fails the call. */
#define FD_CUDA_LAUNCHED(...) FD_CUDA_CHECK(cudaGetLastError(), __VA_ARGS__)

/* Blocks of FD_CUDA_BLOCK threads for `work` items handled by grid-stride loops; the cap keeps
 * the grid legal and launches cheap, the loops cover the rest. */
static inline unsigned fd_cuda_blocks(int64_t work, int64_t per_block)
{
    int64_t b = (work + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

#endif /* FD_CUDA_FD_CUDA_CUH_ */
