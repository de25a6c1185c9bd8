/* SPDX-License-Identifier: MIT */
/*
 * wgmma_sm90.cuh - the sm_90a building blocks the wgmma rows share (the src/cuda files named
 * *__sm90.cu): mbarrier init / arrive / bounded wait, TMA tile loads, the wgmma fence / commit /
 * wait wrappers and accumulator pin, the shared-memory matrix descriptor of TMA's 128-byte
 * swizzle, the wgmma instructions themselves (K-major: f16, bf16, tf32; MN-major: f16, bf16),
 * and on the host the driver's cuTensorMapEncodeTiled, one tiled-map encoder and the
 * compute-capability 9.0 check. One definition for every row; each .cu keeps its own kernels, plans
 * and gates.
 *
 * Decisions. Everything is `static` (device functions forceinline, host functions inline): one
 * copy per translation unit, no link-time symbols, nothing emitted where unused. Device code is
 * compiled for sm_90a only (__CUDA_ARCH_FEAT_SM90_ALL); other targets see no device half, as
 * their kernels trap. Self-contained (CUDA headers only, no library header) so the dev/wgmma
 * sandboxes include it as they are. The host half uses CUDA types only: each row maps its cuDNN
 * data type to the CUtensorMapDataType itself. A bounded mbarrier wait traps after 20 s of GPU
 * time (a protocol bug becomes a sticky error, not a hang).
 *
 * Descriptor (PTX ISA, "Matrix Descriptor Format" and "Shared Memory Matrix Layout"): start
 * address >> 4 in bits 0-13, leading byte offset >> 4 in bits 16-29, stride byte offset >> 4 in
 * bits 32-45, base offset 0 (every region is 1024-byte aligned), swizzle mode 1 (128B) in bits
 * 62-63. TMA's SWIZZLE_128B writes a box of 128-byte rows with 8-row 1024-byte atoms stacked
 * densely: SBO = 1024 B in either major-ness. K-major: the LBO is unused (1 by convention), a
 * k step inside the 128-byte row adds its byte offset to the start address (the hardware
 * swizzles the final address). MN-major: LBO = offset between 64-element MN groups.
 */
#ifndef FD_WGMMA_SM90_CUH
#define FD_WGMMA_SM90_CUH

#include <cuda.h> /* CUtensorMap and its enums only: no driver library is linked */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#define WGX_MAX_DEV 64 /* devices with cached answers; others ask every time */

/* ---- device code (sm_90a only) ------------------------------------------------------------ */

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

#define WGX_WAIT_NS 20000000000ull /* 20 s: legal waits last microseconds */

static __device__ __forceinline__ uint32_t wgx_smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void wgx_mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

static __device__ __forceinline__ void wgx_mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile(
        "{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar),
        "r"(bytes)
        : "memory");
}

static __device__ __forceinline__ void wgx_mbar_arrive(uint32_t bar)
{
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar)
                 : "memory");
}

static __device__ __forceinline__ uint32_t wgx_mbar_try(uint32_t bar, uint32_t parity)
{
    uint32_t ok;
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(ok)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return ok;
}

static __device__ __forceinline__ uint64_t wgx_globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
    return t;
}

/* Waits for the phase of parity `parity`; a wait beyond WGX_WAIT_NS traps (sticky error). */
static __device__ __forceinline__ void wgx_mbar_wait(uint32_t bar, uint32_t parity)
{
    if (wgx_mbar_try(bar, parity))
        return;
    const uint64_t t0 = wgx_globaltimer();
    for (unsigned i = 1;; i++) {
        if (wgx_mbar_try(bar, parity))
            return;
        if ((i & 1023u) == 0 && wgx_globaltimer() - t0 > WGX_WAIT_NS)
            __trap();
    }
}

static __device__ __forceinline__ void wgx_tma_2d(uint32_t dst, const CUtensorMap *map,
                                                  uint32_t bar, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}

static __device__ __forceinline__ void wgx_tma_4d(uint32_t dst, const CUtensorMap *map,
                                                  uint32_t bar, int c0, int c1, int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

static __device__ __forceinline__ void wgx_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
static __device__ __forceinline__ void wgx_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> static __device__ __forceinline__ void wgx_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* wgmma writes the accumulators behind the compiler's back: pin them in program order. */
template <int R> static __device__ __forceinline__ void wgx_acc_fence(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* Descriptor of a 128B-swizzled operand at shared address `addr` (1024-byte aligned region):
 * `lbo` the leading byte offset in 16-byte units (1 for K-major, where it is unused), SBO 1024
 * bytes (one 8-row atom), mode 1. */
static __device__ __forceinline__ uint64_t wgx_desc(uint32_t addr, uint32_t lbo)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)(lbo & 0x3FFFu) << 16) |
           ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}

/* ---- wgmma m64nBN, f32 accumulators, operands from shared memory ------------------------- */

#define WGX_D4(i) "+f"(d[(i)]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3])
#define WGX_D16(i) WGX_D4(i), WGX_D4((i) + 4), WGX_D4((i) + 8), WGX_D4((i) + 12)
#define WGX_D32(i) WGX_D16(i), WGX_D16((i) + 16)
#define WGX_D64(i) WGX_D32(i), WGX_D32((i) + 32)
#define WGX_DL32 WGX_D32(0)
#define WGX_DL64 WGX_D64(0)
#define WGX_DL128 WGX_D64(0), WGX_D64(64)

#define WGX_P32                                                                                    \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                       \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define WGX_P64                                                                                    \
    WGX_P32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "   \
            "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define WGX_P128                                                                                   \
    WGX_P64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "   \
            "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "     \
            "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "     \
            "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, " \
            "%124, %125, %126, %127"

/* d (NREG floats per thread) += A (64 x k at descriptor da) * B (k x BN at db). Operands:
 * %0..%NREG-1 the accumulators, then da, db and the scale-d flag (always 1: d starts at 0).
 * IMM: the immediates after scale-d: scale-a = scale-b = 1, then for 16-bit types imm-trans-a
 * and imm-trans-b (0 K-major, 1 MN-major); the .tf32 form has no transpose immediates
 * (transposition exists for 16-bit types only: tf32 operands are K-major). */
#define WGX_MMA(NAME, SHAPE, TY, IMM, NREG, PLIST, DLIST, SCALE_IDX, DA_IDX, DB_IDX)               \
    static __device__ __forceinline__ void NAME(float(&d)[NREG], uint64_t da, uint64_t db)         \
    {                                                                                              \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" SCALE_IDX ", 0;\n"                       \
                     "wgmma.mma_async.sync.aligned." SHAPE ".f32." TY "." TY " {" PLIST "}, "      \
                     "%" DA_IDX ", %" DB_IDX ", p, " IMM ";\n}\n"                                  \
                     : DLIST                                                                       \
                     : "l"(da), "l"(db), "r"(1));                                                  \
    }
#define WGX_MMA3(PFX, K, TY, IMM)                                                                  \
    WGX_MMA(PFX##_n64, "m64n64k" K, TY, IMM, 32, WGX_P32, WGX_DL32, "34", "32", "33")              \
    WGX_MMA(PFX##_n128, "m64n128k" K, TY, IMM, 64, WGX_P64, WGX_DL64, "66", "64", "65")            \
    WGX_MMA(PFX##_n256, "m64n256k" K, TY, IMM, 128, WGX_P128, WGX_DL128, "130", "128", "129")

WGX_MMA3(wgx_mma_k_f16, "16", "f16", "1, 1, 0, 0")
WGX_MMA3(wgx_mma_k_bf16, "16", "bf16", "1, 1, 0, 0")
/* tf32: the operands are the floats as stored, unrounded; the tensor core reads them as TF32,
 * keeping the sign, the exponent and the top 10 mantissa bits */
WGX_MMA3(wgx_mma_k_tf32, "8", "tf32", "1, 1")
WGX_MMA3(wgx_mma_mn_f16, "16", "f16", "1, 1, 1, 1")
WGX_MMA3(wgx_mma_mn_bf16, "16", "bf16", "1, 1, 1, 1")
/* A K-major, B MN-major (imm-trans-b = 1): 16-bit types only */
WGX_MMA3(wgx_mma_kmn_f16, "16", "f16", "1, 1, 0, 1")
WGX_MMA3(wgx_mma_kmn_bf16, "16", "bf16", "1, 1, 0, 1")

/* Overloads by element type (a null pointer of it) and accumulator count (BN/2): wgx_mma_k
 * both operands K-major (k16 of 16-bit types, k8 of tf32: 32 bytes of a row either way),
 * wgx_mma_mn both MN-major, wgx_mma_kmn A K-major and B MN-major (16-bit types only). */
#define WGX_OVL(FN, T, PFX)                                                                        \
    static __device__ __forceinline__ void FN(const T *, float(&d)[32], uint64_t a, uint64_t b)    \
    {                                                                                              \
        PFX##_n64(d, a, b);                                                                        \
    }                                                                                              \
    static __device__ __forceinline__ void FN(const T *, float(&d)[64], uint64_t a, uint64_t b)    \
    {                                                                                              \
        PFX##_n128(d, a, b);                                                                       \
    }                                                                                              \
    static __device__ __forceinline__ void FN(const T *, float(&d)[128], uint64_t a, uint64_t b)   \
    {                                                                                              \
        PFX##_n256(d, a, b);                                                                       \
    }

WGX_OVL(wgx_mma_k, __half, wgx_mma_k_f16)
WGX_OVL(wgx_mma_k, __nv_bfloat16, wgx_mma_k_bf16)
WGX_OVL(wgx_mma_k, float, wgx_mma_k_tf32)
WGX_OVL(wgx_mma_mn, __half, wgx_mma_mn_f16)
WGX_OVL(wgx_mma_mn, __nv_bfloat16, wgx_mma_mn_bf16)
WGX_OVL(wgx_mma_kmn, __half, wgx_mma_kmn_f16)
WGX_OVL(wgx_mma_kmn, __nv_bfloat16, wgx_mma_kmn_bf16)

#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

/* ---- host ---------------------------------------------------------------------------------- */

/* cuTensorMapEncodeTiled without linking libcuda: the runtime hands out the driver's entry. */
typedef CUresult (*wgx_encode_fn_t)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                    const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                    const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static inline wgx_encode_fn_t wgx_encode_lookup(void)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                     cudaEnableDefault, &q);
#else
    cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q);
#endif
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return (wgx_encode_fn_t)fn;
}

/* The entry, looked up once per process (a function-local static: C++ initialises it once,
 * thread-safely); NULL where the driver has none. */
static inline wgx_encode_fn_t wgx_encode(void)
{
    static const wgx_encode_fn_t fn = wgx_encode_lookup();
    return fn;
}

/* One 128B-swizzled tiled map with element strides estr (TMA steps estr[i] elements along dim i
 * and loads ceil(box[i] / estr[i]) of them; estr[0] is ignored), zero fill outside the tensor;
 * 0 when the driver refuses it (res holds its code). */
static inline int wgx_map_strided(CUtensorMap *map, CUtensorMapDataType dt, int rank, const void *ptr,
                                  const cuuint64_t *dims, const cuuint64_t *strides,
                                  const cuuint32_t *box, const cuuint32_t *estr, int *res)
{
    const CUresult r =
        wgx_encode()(map, dt, (cuuint32_t)rank, (void *)ptr, dims, strides, box, estr,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    *res = (int)r;
    return r == CUDA_SUCCESS;
}

/* The same with unit element strides: box[i] elements along dim i. */
static inline int wgx_map(CUtensorMap *map, CUtensorMapDataType dt, int rank, const void *ptr,
                          const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                          int *res)
{
    static const cuuint32_t one[5] = {1, 1, 1, 1, 1};
    return wgx_map_strided(map, dt, rank, ptr, dims, strides, box, one, res);
}

/* 1 when the current device is compute capability 9.0 (sm_90a code runs there only); the
 * answer is cached per device id (0 unknown, 1 yes, 2 no); racing first calls store the same. */
static inline int wgx_device_sm90(char *why, size_t why_size)
{
    static int cache[WGX_MAX_DEV];
    int dev = -1, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_size,
                 "cudaGetDevice failed: no current CUDA device for the sm_90a wgmma row");
        return 0;
    }
    int v = dev >= 0 && dev < WGX_MAX_DEV ? __atomic_load_n(&cache[dev], __ATOMIC_ACQUIRE) : 0;
    if (v == 0) {
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(why, why_size, "device %d: its compute capability cannot be read", dev);
            return 0;
        }
        v = major == 9 && minor == 0 ? 1 : 2;
        if (dev >= 0 && dev < WGX_MAX_DEV)
            __atomic_store_n(&cache[dev], v, __ATOMIC_RELEASE);
    }
    if (v != 1) {
        snprintf(why, why_size,
                 "device %d is not compute capability 9.0; the wgmma row runs on sm_90a "
                 "(H100/H200) only",
                 dev);
        return 0;
    }
    return 1;
}

#endif /* FD_WGMMA_SM90_CUH */
