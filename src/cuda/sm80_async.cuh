/* SPDX-License-Identifier: MIT */
/*
 * sm80_async.cuh - the sm_80 data-movement primitives the mma.sync kernels share (conv_tc.cu,
 * conv_smallc.cu): 16-byte cp.async copies with zero fill, their groups, and ldmatrix (plain and
 * transposed) of four 8x8 b16 matrices. sm_90 runs them too.
 */
#ifndef FD_CUDA_SM80_ASYNC_CUH_
#define FD_CUDA_SM80_ASYNC_CUH_

/* 16 bytes global -> shared, or 16 zero bytes when !ok (src-size 0 reads nothing). */
static __device__ __forceinline__ void tc_cp_async16(void *smem, const void *gmem, int ok)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(ok ? 16 : 0));
}

static __device__ __forceinline__ void tc_cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::);
}

/* Waits until at most n committed groups are still in flight (n: a constant). */
#define TC_CP_ASYNC_WAIT(n) asm volatile("cp.async.wait_group %0;\n" ::"n"(n))

static __device__ __forceinline__ void tc_ldmatrix_x4(unsigned *r, const void *smem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}

static __device__ __forceinline__ void tc_ldmatrix_x4_trans(unsigned *r, const void *smem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}

#endif /* FD_CUDA_SM80_ASYNC_CUH_ */
