/* SPDX-License-Identifier: MIT */
/*
 * pdl.cuh - programmatic dependent launch for the kernels that finish what the kernel before
 * them on the stream began: rd_fin2 after rd_seg / rd_col, bn_pk_combine after the batch-norm
 * partials, the batch-norm apply passes after bn_pk_combine.
 */
#ifndef FD_CUDA_PDL_CUH_
#define FD_CUDA_PDL_CUH_

#include "fd_cuda.cuh"

/* Programmatic dependent launch (compute capability 9.0+): a kernel launched with
 * fd_cuda_launch_pdl may be scheduled while the kernel before it on the stream is still running;
 * it must call fd_pdl_wait() before it reads anything that kernel writes and before it writes
 * anything that kernel reads (the wait returns once the earlier grid has completed and its
 * memory is visible). fd_pdl_trigger() at the start of the earlier kernel lets the dependent be
 * launched once every block of it has started (its blocks then take SM slots as the earlier
 * kernel's retire) rather than once its last block has exited. On sm_80 both are no-ops
 * and the launch is a plain one. fd_cuda_pdl_ok: the current device takes the attribute and
 * FREEDNN_GPU_PDL is not 0 (asked once per device). */
static __device__ __forceinline__ void fd_pdl_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
static __device__ __forceinline__ void fd_pdl_trigger(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
extern "C" int fd_cuda_pdl_ok(void);

/* kernel<<<grid, block, smem, s>>>(a...) as a programmatic dependent of the stream's previous
 * kernel where fd_cuda_pdl_ok(), else as a plain launch; the launch's error. Each argument is
 * converted to its parameter's type first (as <<<>>> does: NULL for a pointer). */
template <typename... P, typename... A>
static inline cudaError_t fd_cuda_launch_pdl(void (*kernel)(P...), dim3 grid, dim3 block,
                                             unsigned smem, cudaStream_t s, A &&...a)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    cfg.gridDim = grid, cfg.blockDim = block, cfg.dynamicSmemBytes = smem, cfg.stream = s;
    if (fd_cuda_pdl_ok()) {
        at[0] = cudaLaunchAttribute{};
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = at, cfg.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&cfg, kernel, typename std::decay<P>::type(std::forward<A>(a))...);
}

#endif /* FD_CUDA_PDL_CUH_ */
