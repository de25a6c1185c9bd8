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

#include <type_traits>
#include <utility>

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

/* A kernel launch through the driver's cuLaunchKernel (found once through the runtime's
 * entry-point query: the library links no libcuda), for the convolution rows whose host time is
 * issue 7.3's measure. On the H200 host an empty kernel cost 3.6-4.1 us that way against
 * 4.1-4.5 us through <<<>>> in one run and 4.11 against 4.17 us in the next (bench/host_overhead
 * HOST_PROBES=1, docs/perf/gpu-host-2026-12-01.md): no gain shown on the rows' host time, none
 * lost; the path stays as the place to cut launch cost.
 * func: the __global__ function's address; fcache: FD_CUDA_FCACHE function handles of it, one
 * per device (a zeroed static array of the launch site: handles belong to a device's context);
 * args: the addresses of the kernel's parameters in order. Whenever the driver path is not
 * available or refuses (no current context on this thread, a bad configuration, a sticky fault),
 * the same launch goes through cudaLaunchKernel, so errors and their text are the runtime's. */
#define FD_CUDA_FCACHE 64
extern "C" cudaError_t fd_cuda_launch(const void *func, void **fcache, int dev, dim3 grid, dim3 block,
                                      unsigned smem, cudaStream_t s, void **args);

/* fd_cuda_launch for a kernel and its arguments: each argument converted to the kernel's
 * parameter type (as <<<>>> does), the addresses handed over in order. One fcache per launch
 * site: `static void *fc[FD_CUDA_FCACHE];` in the (template) function that launches. dev: the
 * current device where the caller has just asked for it (a runtime call saved), else -1. */
template <typename... V>
static inline cudaError_t fd_cuda_launch_v(const void *f, void **fc, int dev, dim3 grid, dim3 block,
                                           unsigned smem, cudaStream_t s, V... v)
{
    void *args[] = {(void *)&v..., nullptr}; /* the parameters' copies live in this frame */
    return fd_cuda_launch(f, fc, dev, grid, block, smem, s, args);
}

template <typename... P, typename... A>
static inline cudaError_t fd_cuda_launch_on(int dev, void (*kernel)(P...), void **fc, dim3 grid, dim3 block,
                                            unsigned smem, cudaStream_t s, A &&...a)
{
    return fd_cuda_launch_v((const void *)kernel, fc, dev, grid, block, smem, s,
                            typename std::decay<P>::type(std::forward<A>(a))...);
}

template <typename... P, typename... A>
static inline cudaError_t fd_cuda_launch_k(void (*kernel)(P...), void **fc, dim3 grid, dim3 block, unsigned smem,
                                           cudaStream_t s, A &&...a)
{
    return fd_cuda_launch_on(-1, kernel, fc, grid, block, smem, s, std::forward<A>(a)...);
}

/* After fd_cuda_launch_k: its error, else the runtime's last error (a sticky earlier fault). */
#define FD_CUDA_LAUNCHED_AS(err, ...) FD_CUDA_CHECK((err) != cudaSuccess ? (err) : cudaGetLastError(), __VA_ARGS__)

/* Blocks of FD_CUDA_BLOCK threads for `work` items handled by grid-stride loops; the cap keeps
 * the grid legal and launches cheap, the loops cover the rest. */
static inline unsigned fd_cuda_blocks(int64_t work, int64_t per_block)
{
    int64_t b = (work + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

#endif /* FD_CUDA_FD_CUDA_CUH_ */
