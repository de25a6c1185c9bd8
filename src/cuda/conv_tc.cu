/* SPDX-License-Identifier: MIT */
/*
 * conv_tc.cu - forward convolution as an implicit GEMM on tensor cores (mma.sync m16n8k16,
 * cp.async, ldmatrix: the sm_80 instruction set, which sm_90 runs too). Row
 * fd_conv_fwd_tc_igemm serves IMPLICIT_GEMM and IMPLICIT_PRECOMP_GEMM for HALF and BFLOAT16
 * data with float accumulation; everything it declines goes to the naive direct row.
 *
 * GEMM mapping: y[m, k] = sum over kk of A[m, kk] * B[kk, k] with
 *   m  = (n, od, oh, ow)             M = N * OD * OH * OW   (rows of y, any y strides)
 *   k  = output channel              K
 *   kk = (f0, f1, f2, c)             KRED = FD * FH * FW * C, the filter's KRSC memory order
 *   A[m, kk] = x[n, od*s - p + t0*d, oh*s - p + t1*d, ow*s - p + t2*d, c] (0 outside),
 *              t = f for cross-correlation, FLT - 1 - f for convolution (flipped filter)
 *   B[kk, k] = w[k, f0, f1, f2, c]  (row k of the KRSC filter is contiguous along kk)
 * Tile: TC_BM x TC_BN = 128 x 128 per block, TC_BK = 32 along kk, TC_STAGES = 3 stages of
 * cp.async (A and B: 3 x 2 x 8 KiB = 48 KiB of static shared memory), 8 warps of 64 x 32.
 * Shared tiles are rows of four 16-byte chunks, XOR-swizzled by (row / 2) mod 4 so that the
 * eight rows one ldmatrix phase reads fall in distinct banks.
 *
 * What it takes (applicable): groups 1; x channel-contiguous (NHWC-like: C stride 1, other
 * strides multiples of 8 elements); filter in NHWC (KRSC) format, packed; C a multiple of 8
 * (16-byte chunks never straddle a tap); y any strides. The run falls back to the direct
 * kernel when x or w is not 16-byte aligned (the API cannot see pointers at selection time).
 * Deterministic: a fixed reduction order, no split-K. Accumulation in float like the direct
 * kernel; alpha/beta blended in double and rounded once, so integer-exact problems give the
 * same bits as ref.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdio.h>

#include "fd_cuda.cuh"

#define TC_BM 128
#define TC_BN 128
#define TC_BK 32
#define TC_STAGES 3
#define TC_THREADS 256

/* The problem as the kernel reads it (int where sizes fit, 64-bit for offsets). */
typedef struct {
    int64_t m;                      /* N * OD * OH * OW */
    int64_t kred;                   /* FD * FH * FW * C */
    int c, k;
    int in[3], out[3], flt[3], pad[3], stride[3], dil[3];
    int cross;
    int64_t xs[5], ys[5];           /* element strides N, C, D, H, W */
    int64_t wk;                     /* filter stride between output channels */
} tc_geom_t;

/* ---- the sm_80 primitives ------------------------------------------------------------------ */

/* Element (row, 8-element chunk) of a TC_BK-wide tile, swizzled. */
static __device__ __forceinline__ int tc_swz(int row, int chunk)
{
    return row * TC_BK + ((chunk ^ ((row >> 1) & 3)) << 3);
}

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

static __device__ __forceinline__ float tc_ld(const __half *p)
{
    return __half2float(*p);
}
static __device__ __forceinline__ float tc_ld(const __nv_bfloat16 *p)
{
    return __bfloat162float(*p);
}
static __device__ __forceinline__ __half tc_from_double_(const __half *, double v)
{
    return __double2half(v);
}
static __device__ __forceinline__ __nv_bfloat16 tc_from_double_(const __nv_bfloat16 *, double v)
{
    return __double2bfloat16(v);
}

/* ---- the kernels, once per storage type ------------------------------------------------------ */

#define FD_T __half
#define FD_SFX f16
#define FD_MMA "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#include "conv_tc_kernels.cuh"
#undef FD_T
#undef FD_SFX
#undef FD_MMA

#define FD_T __nv_bfloat16
#define FD_SFX bf16
#define FD_MMA "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#include "conv_tc_kernels.cuh"
#undef FD_T
#undef FD_SFX
#undef FD_MMA

/* ---- the row (src/impls.def) ----------------------------------------------------------------- */

extern "C" cudnnStatus_t fd_conv_fwd_direct_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);

extern "C" int fd_conv_fwd_tc_igemm_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    const cudnnDataType_t dt = p->xdt;
    if ((dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16) || p->wdt != dt || p->ydt != dt) {
        snprintf(why, why_size, "x/w/y are %s/%s/%s; the tensor-core kernel takes HALF or BFLOAT16 "
                 "for all three", fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt));
        return 0;
    }
    if (p->groups != 1) {
        snprintf(why, why_size, "%lld groups; the tensor-core kernel takes 1", (long long)p->groups);
        return 0;
    }
    if (p->c % 8 != 0) {
        snprintf(why, why_size, "C = %lld is not a multiple of 8", (long long)p->c);
        return 0;
    }
    if (p->xs[1] != 1) {
        snprintf(why, why_size, "x's C stride is %lld; the tensor-core kernel needs channels "
                 "contiguous (NHWC)", (long long)p->xs[1]);
        return 0;
    }
    for (int d = 0; d < 2 + FD_CONV_SPATIAL_MAX; d++) {
        if (d == 1)
            continue; /* C: stride 1, checked above */
        const int64_t extent = d == 0 ? p->n : p->in[d - 2];
        if (extent > 1 && p->xs[d] % 8 != 0) {
            snprintf(why, why_size, "x stride %lld of dim %d is not a multiple of 8 elements",
                     (long long)p->xs[d], d);
            return 0;
        }
    }
    /* KRSC packed: C, then the taps innermost-first, then K. */
    int64_t want = 1;
    int packed = p->ws[1] == 1;
    want = p->c;
    for (int d = FD_CONV_SPATIAL_MAX - 1; d >= 0; d--) {
        if (p->flt[d] > 1 && p->ws[2 + d] != want)
            packed = 0;
        want *= p->flt[d];
    }
    if (!packed || (p->k > 1 && p->ws[0] != want)) {
        snprintf(why, why_size, "the filter is not a packed NHWC (KRSC) filter");
        return 0;
    }
    const int64_t lim = (int64_t)1 << 30;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
        if (p->in[d] >= lim || p->out[d] >= lim || p->pad[d] >= lim || p->stride[d] >= lim ||
            p->dil[d] >= lim || p->flt[d] >= lim) {
            snprintf(why, why_size, "a spatial size reaches 2^30");
            return 0;
        }
    if (p->k >= lim || p->c >= lim || (p->n * p->out[0] * p->out[1] * p->out[2] + TC_BM - 1) / TC_BM >= 0x7fffffff ||
        (p->k + TC_BN - 1) / TC_BN > 65535) {
        snprintf(why, why_size, "the grid would exceed CUDA's limits");
        return 0;
    }
    return 1;
}

extern "C" size_t fd_conv_fwd_tc_igemm_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

extern "C" cudnnStatus_t fd_conv_fwd_tc_igemm_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    if (((uintptr_t)a->x | (uintptr_t)a->w) % 16 != 0)
        return fd_conv_fwd_direct_run(p, a); /* 16-byte copies need 16-byte alignment */
    tc_geom_t g;
    g.m = p->n * p->out[0] * p->out[1] * p->out[2];
    g.kred = p->c * p->flt[0] * p->flt[1] * p->flt[2];
    g.c = (int)p->c, g.k = (int)p->k;
    for (int d = 0; d < 3; d++) {
        g.in[d] = (int)p->in[d], g.out[d] = (int)p->out[d], g.flt[d] = (int)p->flt[d];
        g.pad[d] = (int)p->pad[d], g.stride[d] = (int)p->stride[d], g.dil[d] = (int)p->dil[d];
    }
    g.cross = p->cross_correlation;
    for (int d = 0; d < 5; d++)
        g.xs[d] = p->xs[d], g.ys[d] = p->ys[d];
    g.wk = p->ws[0];
    const dim3 grid((unsigned)((g.m + TC_BM - 1) / TC_BM), (unsigned)((g.k + TC_BN - 1) / TC_BN));
    cudaStream_t s = a->handle->stream;
    if (p->xdt == CUDNN_DATA_HALF)
        conv_fwd_tc_f16<<<grid, TC_THREADS, 0, s>>>(g, (const __half *)a->x, (const __half *)a->w,
                                                    (__half *)a->out, a->alpha, a->beta);
    else
        conv_fwd_tc_bf16<<<grid, TC_THREADS, 0, s>>>(g, (const __nv_bfloat16 *)a->x,
                                                     (const __nv_bfloat16 *)a->w,
                                                     (__nv_bfloat16 *)a->out, a->alpha, a->beta);
    FD_CUDA_LAUNCHED("conv_fwd_tc on %s data (grid %u x %u, stream %p)", fd_dtype_name(p->xdt),
                     grid.x, grid.y, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}
