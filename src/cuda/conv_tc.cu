/* SPDX-License-Identifier: MIT */
/*
 * conv_tc.cu - convolution as implicit GEMM on tensor cores (mma.sync with float accumulation,
 * cp.async, ldmatrix: the sm_80 instruction set, which sm_90 runs too), all three directions,
 * NHWC activations and a KRSC (NHWC-format) filter. HALF and BFLOAT16 run mma m16n8k16; FLOAT
 * runs TF32 (mma m16n8k8, each operand rounded to 10 mantissa bits by cvt.rna.tf32.f32 as it
 * leaves shared memory, as cuBLAS rounds) under DEFAULT, TENSOR_OP and TENSOR_OP_ALLOW_CONVERSION
 * math, which cuDNN allows TF32 on Ampere and later (contract §1.8). Rows:
 *   fd_conv_fwd_tc_igemm        FWD IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM    no workspace
 *   fd_conv_bwd_data_tc_igemm   BWD_DATA ALGO_0, ALGO_1                     no workspace
 *   fd_conv_bwd_filter_tc_igemm BWD_FILTER ALGO_1, ALGO_3                   split-K workspace
 * What they decline goes to the naive direct rows (conv_direct.cu), which also serve FLOAT
 * under FMA_MATH or with NVIDIA_TF32_OVERRIDE=0 in the environment (read once per process).
 *
 * GEMM mappings (t: the logical tap: f for cross-correlation, FLT - 1 - f for convolution,
 * whose filter is read flipped; f: the memory tap of the KRSC filter):
 *   fwd        y[m, k]  = sum_kk A[m, kk] B[kk, k]; M = N*OD*OH*OW, N = K, K = FD*FH*FW*C;
 *              A = x gathered at o * s - p + t * d (0 outside), B[kk, k] = w[k, f, c]
 *   bwd data   dx[m, c] = sum_kk A[m, kk] B[kk, c]; M = N*ID*IH*IW, N = C, K = FD*FH*FW*K;
 *              A = dy at (i + p - t * d) / s when divisible and inside, B[kk, c] = w[k, f, c]
 *   bwd filter dw[k, j] = sum_m A[k, m] B[m, j];   M = K, N = FD*FH*FW*C, K = N*OD*OH*OW;
 *              A[k, m] = dy[m, k], B[m, j] = x gathered as in fwd; the m range is split
 *              (a fixed rule of the problem, not of the GPU) into float partial tiles in the
 *              workspace, summed in split order by a second kernel, or by the last block of
 *              each tile when the partials are small (one launch, splitk.cuh): deterministic,
 *              the same bits either way.
 * Tile: 128 x 128 per block, 64 bytes along the reduction (BK = 32 16-bit elements or 16
 * floats), 3 stages of cp.async: A and B take 3 x 2 x 8 KiB = 48 KiB of static shared memory
 * for every type, 8 warps of 64 x 32 (4 x 4 mma tiles). Where the GEMM's N (fwd K, bwd data C)
 * is at most 32 the tile is 128 x 32, where bwd filter's M (K) is, 32 x 128 (the narrow tiles):
 * 4 warps of 32 x 32 (2 x 4 mma tiles), 3 x (8 + 2) KiB = 30 KiB, four blocks an SM; a 128 x 128
 * tile there was three quarters padding (DeepBench's speech layers, C = K = 32: bwd data 0.28-
 * 0.39 and bwd filter 0.39-0.67 of NVIDIA's speed on the H200, 2026-12-06). Tiles whose
 * reduction index runs along rows (B of bwd data, both operands of bwd filter) are staged
 * [BK][128] (or [BK][32]) and read with ldmatrix.trans (16-bit) or 32-bit loads (float); every
 * staged row is XOR-swizzled so one fragment load touches each bank once (conv_tc_kernels.cuh
 * says how). The kernels are templates over the storage type (tc_traits: chunk width and mma)
 * and the tile (tc_tile); the directions share one main loop and differ in their loader and
 * epilogue. ptxas (nvcc 13.0, sm_90, -O2 as the library builds), registers per thread, 0
 * spills everywhere (sm_80 within a few of these): 128 x 128 f16 and bf16: fwd 126, bwd data
 * 153, bwd filter 126; tf32: fwd 126, bwd data 155, bwd filter 124; narrow f16 / bf16: fwd 114,
 * bwd data 122, bwd filter 121; tf32: 115 / 126 / 122; the split reduce 32.
 *
 * What they take (tc_applicable): groups 1; C and K multiples of the 16-byte chunk (8 16-bit
 * elements, 4 floats), so a chunk never straddles a tap; x and dy channel-contiguous with the
 * other strides multiples of the chunk; the filter packed KRSC; the written tensor (y, dx) any
 * strides. A call whose read pointers are not 16-byte aligned runs the direct kernel instead
 * (selection cannot see pointers). Accumulation in float like the direct kernels; alpha/beta
 * blended in double and rounded once, so integer-exact problems (for TF32: integers of at most
 * 11 bits, which its rounding keeps) give the same bits as ref. Every row is deterministic.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_cuda.cuh"
#include "sm80_async.cuh"
#include "splitk.cuh"

#define TC_STAGES 3
/* bwd filter splits are multiples of this many reduction rows (a multiple of every type's BK,
 * so the split rule and the workspace size do not depend on the data type) */
#define TC_SPLIT_ROWS 32

/* The problem as the kernel reads it (int where sizes fit, 64-bit for offsets). */
typedef struct {
    int64_t m;                      /* N * OD * OH * OW (bwd data: N * ID * IH * IW) */
    int64_t kred;                   /* FD * FH * FW * C (bwd data: FD * FH * FW * K) */
    int c, k;
    int in[3], out[3], flt[3], pad[3], stride[3], dil[3];
    int cross;
    int64_t xs[5], ys[5];           /* element strides N, C, D, H, W */
    int64_t wk;                     /* filter stride between output channels */
} tc_geom_t;

/* ---- the sm_80 primitives ------------------------------------------------------------------ */

/* The bits of a float (given as bits) rounded to TF32, to nearest, ties away from zero. */
static __device__ __forceinline__ unsigned tc_tf32(unsigned bits)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(bits)));
    return r;
}

static __device__ __forceinline__ float tc_ld(const float *p)
{
    return *p;
}
static __device__ __forceinline__ float tc_ld(const __half *p)
{
    return __half2float(*p);
}
static __device__ __forceinline__ float tc_ld(const __nv_bfloat16 *p)
{
    return __bfloat162float(*p);
}
static __device__ __forceinline__ float tc_from_double_(const float *, double v)
{
    return (float)v;
}
static __device__ __forceinline__ __half tc_from_double_(const __half *, double v)
{
    return __double2half(v);
}
static __device__ __forceinline__ __nv_bfloat16 tc_from_double_(const __nv_bfloat16 *, double v)
{
    return __double2bfloat16(v);
}

/* ---- the kernels (templates over the storage type) ---------------------------------------- */

#include "conv_tc_kernels.cuh"

/* ---- the rows (src/impls.def) ------------------------------------------------------------ */

extern "C" cudnnStatus_t fd_conv_fwd_direct_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
extern "C" cudnnStatus_t fd_conv_bwd_data_direct_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
extern "C" cudnnStatus_t fd_conv_bwd_filter_direct_run(const fd_conv_problem_t *p,
                                                       const fd_conv_args_t *a);

/* NVIDIA_TF32_OVERRIDE=0 turns TF32 off in NVIDIA's libraries; read once per process (a
 * function-local static: C++ initialises it once, thread-safely). */
static int tf32_env_off(void)
{
    const char *e = getenv("NVIDIA_TF32_OVERRIDE");
    return e != NULL && strcmp(e, "0") == 0;
}

static int tf32_disabled(void)
{
    static const int off = tf32_env_off();
    return off;
}

/* Channel-contiguous (NHWC-like) activation tensor: C stride 1, the others multiples of the
 * chunk (epc elements) wherever the dim has more than one element, so 16-byte chunks stay
 * aligned. */
static int nhwc_ok(const int64_t *st, const fd_conv_problem_t *p, const int64_t *sp, int epc,
                   const char *name, char *why, size_t why_size)
{
    if (st[1] != 1) {
        snprintf(why, why_size, "%s's C stride is %lld; the tensor-core kernels need channels "
                 "contiguous (NHWC)", name, (long long)st[1]);
        return 0;
    }
    for (int d = 0; d < 2 + FD_CONV_SPATIAL_MAX; d++) {
        if (d == 1)
            continue;
        const int64_t extent = d == 0 ? p->n : sp[d - 2];
        if (extent > 1 && st[d] % epc != 0) {
            snprintf(why, why_size, "%s stride %lld of dim %d is not a multiple of %d elements",
                     name, (long long)st[d], d, epc);
            return 0;
        }
    }
    return 1;
}

/* FLOAT data may run as TF32 (every tf32 row: these, conv_tc_dgrad.cu's and the sm_90a wgmma
 * rows): FLOAT compute, a math type other than FMA_MATH, NVIDIA_TF32_OVERRIDE not 0. */
extern "C" int fd_conv_tf32_allowed(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (p->compute != CUDNN_DATA_FLOAT) {
        snprintf(why, why_size, "FLOAT data with compute type %s; TF32 accumulates in FLOAT",
                 fd_dtype_name(p->compute));
        return 0;
    }
    if (p->math == CUDNN_FMA_MATH) {
        snprintf(why, why_size, "CUDNN_FMA_MATH asks for FMA kernels only; TF32 tensor cores "
                 "run FLOAT under DEFAULT, TENSOR_OP or TENSOR_OP_ALLOW_CONVERSION math");
        return 0;
    }
    if (tf32_disabled()) {
        snprintf(why, why_size, "NVIDIA_TF32_OVERRIDE=0 in the environment turns TF32 off");
        return 0;
    }
    return 1;
}

/* Elements per 16-byte chunk for the problem's data type, or 0 (with the reason) when the
 * tensor-core kernels do not take it: HALF or BFLOAT16 everywhere, or FLOAT everywhere with
 * FLOAT compute and a math type that allows TF32. */
static int tc_chunk(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    const cudnnDataType_t dt = p->xdt;
    if ((dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16 && dt != CUDNN_DATA_FLOAT) ||
        p->wdt != dt || p->ydt != dt) {
        snprintf(why, why_size, "x/w/y are %s/%s/%s; the tensor-core kernels take HALF, BFLOAT16 "
                 "or FLOAT (as TF32) for all three", fd_dtype_name(p->xdt), fd_dtype_name(p->wdt),
                 fd_dtype_name(p->ydt));
        return 0;
    }
    if (dt != CUDNN_DATA_FLOAT)
        return 8;
    return fd_conv_tf32_allowed(p, why, why_size) ? 4 : 0;
}

/* What every direction needs: a type tc_chunk takes, one group, C and K multiples of the
 * chunk, a packed KRSC filter, channel-contiguous x (if need_x) and y (if need_y), sizes that
 * fit the kernels' 32-bit index math. */
static int tc_applicable(const fd_conv_problem_t *p, int need_x, int need_y, char *why, size_t why_size)
{
    const int epc = tc_chunk(p, why, why_size);
    if (epc == 0)
        return 0;
    if (p->groups != 1) {
        snprintf(why, why_size, "%lld groups; the tensor-core kernels take 1", (long long)p->groups);
        return 0;
    }
    if (p->c % epc != 0 || p->k % epc != 0) {
        snprintf(why, why_size, "C = %lld, K = %lld: both must be multiples of %d for %s data",
                 (long long)p->c, (long long)p->k, epc, fd_dtype_name(p->xdt));
        return 0;
    }
    if ((need_x && !nhwc_ok(p->xs, p, p->in, epc, "x", why, why_size)) ||
        (need_y && !nhwc_ok(p->ys, p, p->out, epc, "y", why, why_size)))
        return 0;
    /* KRSC packed: C, then the taps innermost-first, then K. */
    int packed = p->ws[1] == 1;
    int64_t want = p->c;
    for (int d = FD_CONV_SPATIAL_MAX - 1; d >= 0; d--) {
        if (p->flt[d] > 1 && p->ws[2 + d] != want)
            packed = 0;
        want *= p->flt[d];
    }
    if (!packed || (p->k > 1 && p->ws[0] != want)) {
        snprintf(why, why_size, "the filter is not a packed NHWC (KRSC) filter");
        return 0;
    }
    const int64_t lim = (int64_t)1 << 28;
    int big = p->k >= lim || p->c >= lim || want >= lim;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
        big |= p->out[d] * p->stride[d] + p->flt[d] * p->dil[d] + p->in[d] + p->pad[d] >= lim;
    const int64_t bm = tc_wide::TM, bn = tc_wide::TN; /* the narrow tiles have no more blocks */
    if (big || (p->n * p->out[0] * p->out[1] * p->out[2] + bm - 1) / bm >= 0x7fffffff ||
        (p->n * p->in[0] * p->in[1] * p->in[2] + bm - 1) / bm >= 0x7fffffff ||
        (p->k + bn - 1) / bn > 65535 || (p->c + bn - 1) / bn > 65535) {
        snprintf(why, why_size, "a size reaches the tensor-core kernels' index limits (2^28)");
        return 0;
    }
    return 1;
}

static tc_geom_t tc_geom(const fd_conv_problem_t *p)
{
    tc_geom_t g;
    const int64_t taps = p->flt[0] * p->flt[1] * p->flt[2];
    switch (p->dir) {
    case FD_CONV_BWD_DATA:
        g.m = p->n * p->in[0] * p->in[1] * p->in[2];
        g.kred = taps * p->k;
        break;
    default: /* fwd: reduction over (taps, c); bwd filter: columns (taps, c), reduction m */
        g.m = p->n * p->out[0] * p->out[1] * p->out[2];
        g.kred = taps * p->c;
        break;
    }
    g.c = (int)p->c, g.k = (int)p->k;
    for (int d = 0; d < 3; d++) {
        g.in[d] = (int)p->in[d], g.out[d] = (int)p->out[d], g.flt[d] = (int)p->flt[d];
        g.pad[d] = (int)p->pad[d], g.stride[d] = (int)p->stride[d], g.dil[d] = (int)p->dil[d];
    }
    g.cross = p->cross_correlation;
    for (int d = 0; d < 5; d++)
        g.xs[d] = p->xs[d], g.ys[d] = p->ys[d];
    g.wk = p->ws[0];
    return g;
}

static int misaligned(const void *a, const void *b)
{
    return (((uintptr_t)a | (uintptr_t)b) % 16) != 0;
}

/* -- forward -- */

extern "C" int fd_conv_fwd_tc_igemm_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return tc_applicable(p, 1, 0, why, why_size);
}

extern "C" size_t fd_conv_fwd_tc_igemm_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

/* The narrow tiles (conv_tc_kernels.cuh: 128 x 32 where the GEMM's N, fwd K or bwd data C, is
 * at most 32; 32 x 128 where bwd filter's M = K is): a 128 x 128 tile there is three quarters
 * padding, and the narrow block (4 warps, 30 KiB of shared memory) leaves room for several per
 * SM. FREEDNN_TC_NARROW=0 (read once) keeps the 128 x 128 tile: forward and backward data give
 * the same bits either way (the same mma on the same operands in the same order); backward
 * filter's split count follows the tile (bwd_filter_splits), so its bits follow the switch. */
static int tc_narrow_on(void)
{
    static const int on = fd_env_on("FREEDNN_TC_NARROW");
    return on;
}

static int tc_narrow(int64_t n)
{
    return n <= 32 && tc_narrow_on();
}

template <typename T, typename CFG>
static cudnnStatus_t fwd_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a, const tc_geom_t &g)
{
    const dim3 grid((unsigned)((g.m + CFG::TM - 1) / CFG::TM), (unsigned)((g.k + CFG::TN - 1) / CFG::TN));
    cudaStream_t s = a->handle->stream;
    static void *fc[FD_CUDA_FCACHE];
    const cudaError_t le = fd_cuda_launch_k(conv_fwd_tc<T, CFG>, fc, grid, dim3(CFG::NT), 0, s, g,
                                            (const T *)a->x, (const T *)a->w, (T *)a->out, a->alpha, a->beta);
    FD_CUDA_LAUNCHED_AS(le, "conv_fwd_tc %dx%d on %s data (grid %u x %u, stream %p)", (int)CFG::TM,
                        (int)CFG::TN, fd_dtype_name(p->xdt), grid.x, grid.y, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

template <typename T>
static cudnnStatus_t fwd_pick(const fd_conv_problem_t *p, const fd_conv_args_t *a, const tc_geom_t &g)
{
    return tc_narrow(g.k) ? fwd_launch<T, tc_narrow_n>(p, a, g) : fwd_launch<T, tc_wide>(p, a, g);
}

extern "C" cudnnStatus_t fd_conv_fwd_tc_igemm_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    if (misaligned(a->x, a->w))
        return fd_conv_fwd_direct_run(p, a); /* 16-byte copies need 16-byte alignment */
    const tc_geom_t g = tc_geom(p);
    switch (p->xdt) {
    case CUDNN_DATA_HALF:
        return fwd_pick<__half>(p, a, g);
    case CUDNN_DATA_BFLOAT16:
        return fwd_pick<__nv_bfloat16>(p, a, g);
    default:
        return fwd_pick<float>(p, a, g);
    }
}

/* -- backward data -- */

extern "C" int fd_conv_bwd_data_tc_igemm_applicable(const fd_conv_problem_t *p, char *why,
                                                    size_t why_size)
{
    return tc_applicable(p, 0, 1, why, why_size);
}

extern "C" size_t fd_conv_bwd_data_tc_igemm_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

template <typename T, typename CFG>
static cudnnStatus_t bwd_data_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                                     const tc_geom_t &g)
{
    const dim3 grid((unsigned)((g.m + CFG::TM - 1) / CFG::TM), (unsigned)((g.c + CFG::TN - 1) / CFG::TN));
    cudaStream_t s = a->handle->stream;
    static void *fc[FD_CUDA_FCACHE];
    const cudaError_t le = fd_cuda_launch_k(conv_bwd_data_tc<T, CFG>, fc, grid, dim3(CFG::NT), 0, s, g,
                                            (const T *)a->y, (const T *)a->w, (T *)a->out, a->alpha, a->beta);
    FD_CUDA_LAUNCHED_AS(le, "conv_bwd_data_tc %dx%d on %s data (grid %u x %u, stream %p)", (int)CFG::TM,
                        (int)CFG::TN, fd_dtype_name(p->xdt), grid.x, grid.y, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

template <typename T>
static cudnnStatus_t bwd_data_pick(const fd_conv_problem_t *p, const fd_conv_args_t *a, const tc_geom_t &g)
{
    return tc_narrow(g.c) ? bwd_data_launch<T, tc_narrow_n>(p, a, g) : bwd_data_launch<T, tc_wide>(p, a, g);
}

extern "C" cudnnStatus_t fd_conv_bwd_data_tc_igemm_run(const fd_conv_problem_t *p,
                                                       const fd_conv_args_t *a)
{
    if (misaligned(a->y, a->w))
        return fd_conv_bwd_data_direct_run(p, a);
    const tc_geom_t g = tc_geom(p);
    switch (p->xdt) {
    case CUDNN_DATA_HALF:
        return bwd_data_pick<__half>(p, a, g);
    case CUDNN_DATA_BFLOAT16:
        return bwd_data_pick<__nv_bfloat16>(p, a, g);
    default:
        return bwd_data_pick<float>(p, a, g);
    }
}

/* -- backward filter: split-K through the workspace, reduced in split order -- */

/* Splits of the N*P*Q reduction: enough blocks for ~2 waves of a 132-SM part whatever the GPU
 * (a fixed target keeps the workspace size and the bits independent of the device: 264 blocks
 * of the 128 x 128 tile, 1056 of the narrow 32 x 128 one, a quarter of the work in half the
 * threads), at least 8 x TC_SPLIT_ROWS reduction rows per split, at most 64 splits (256 for
 * the narrow tile, whose K <= 32 keeps the partials within the 128 x 128 tile's bound for
 * K = 128: 64 splits a K-row there held a 2-tile problem, DeepBench's n16c16h24w240k32r3s3, at
 * one block of 4 warps an SM, 0.83-0.93 of the 128 x 128 tile's speed on an H100). */
static void bwd_filter_splits(const tc_geom_t *g, int *splits, int64_t *split_len)
{
    const int narrow = tc_narrow(g->k);
    const int64_t tm = narrow ? (int64_t)tc_narrow_m::TM : (int64_t)tc_wide::TM;
    const int64_t tn = narrow ? (int64_t)tc_narrow_m::TN : (int64_t)tc_wide::TN;
    const int64_t target = narrow ? 1056 : 264;
    const int64_t tiles = ((g->k + tm - 1) / tm) * ((g->kred + tn - 1) / tn);
    int64_t s = (target + tiles - 1) / tiles;
    const int64_t max_by_len = (g->m + 8 * TC_SPLIT_ROWS - 1) / (8 * TC_SPLIT_ROWS);
    if (s > max_by_len)
        s = max_by_len;
    const int64_t cap = narrow ? 256 : 64;
    if (s > cap)
        s = cap;
    if (s < 1)
        s = 1;
    int64_t len = (g->m + s - 1) / s;
    len = (len + TC_SPLIT_ROWS - 1) / TC_SPLIT_ROWS * TC_SPLIT_ROWS;
    *split_len = len;
    *splits = (int)((g->m + len - 1) / len);
}

extern "C" int fd_conv_bwd_filter_tc_igemm_applicable(const fd_conv_problem_t *p, char *why,
                                                      size_t why_size)
{
    return tc_applicable(p, 1, 1, why, why_size);
}

extern "C" size_t fd_conv_bwd_filter_tc_igemm_workspace(const fd_conv_problem_t *p)
{
    const tc_geom_t g = tc_geom(p);
    int splits;
    int64_t len;
    bwd_filter_splits(&g, &splits, &len);
    return (size_t)splits * (size_t)g.k * (size_t)g.kred * sizeof(float);
}

template <typename T, typename CFG>
static cudnnStatus_t bwd_filter_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                                       const tc_geom_t &g, int splits, int64_t len)
{
    const dim3 grid((unsigned)((g.kred + CFG::TN - 1) / CFG::TN), (unsigned)((g.k + CFG::TM - 1) / CFG::TM),
                    (unsigned)splits);
    const unsigned rblocks = fd_cuda_blocks((int64_t)g.k * g.kred, FD_CUDA_BLOCK);
    cudaStream_t s = a->handle->stream;
    float *part = (float *)a->workspace;
    unsigned *ctr = fd_cuda_splitk_counters(a->handle, (int64_t)grid.x * grid.y, splits,
                                            (size_t)CFG::TM * CFG::TN * sizeof(float), part);
    static void *fc[FD_CUDA_FCACHE];
    const cudaError_t le = fd_cuda_launch_k(conv_bwd_filter_tc<T, CFG>, fc, grid, dim3(CFG::NT), 0, s, g,
                                            (const T *)a->x, (const T *)a->y, part, len, ctr, splits, (T *)a->out,
                                            a->alpha, a->beta);
    FD_CUDA_LAUNCHED_AS(le, "conv_bwd_filter_tc %dx%d on %s data (grid %u x %u x %u, %s)", (int)CFG::TM,
                        (int)CFG::TN, fd_dtype_name(p->xdt), grid.x, grid.y, grid.z,
                        ctr != NULL ? "one launch" : "reduce kernel");
    if (ctr != NULL)
        return CUDNN_STATUS_SUCCESS;
    conv_bwd_filter_tc_reduce<T><<<rblocks, FD_CUDA_BLOCK, 0, s>>>(g, part, splits, (T *)a->out,
                                                                   a->alpha, a->beta);
    FD_CUDA_LAUNCHED("conv_bwd_filter_tc_reduce on %s data (%u blocks, %d splits)",
                     fd_dtype_name(p->xdt), rblocks, splits);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" cudnnStatus_t fd_conv_bwd_filter_tc_igemm_run(const fd_conv_problem_t *p,
                                                         const fd_conv_args_t *a)
{
    if (misaligned(a->x, a->y))
        return fd_conv_bwd_filter_direct_run(p, a);
    const tc_geom_t g = tc_geom(p);
    int splits;
    int64_t len;
    bwd_filter_splits(&g, &splits, &len);
    FD_CHECK(a->workspace_size >= (size_t)splits * (size_t)g.k * (size_t)g.kred * sizeof(float),
             CUDNN_STATUS_BAD_PARAM, "workspace of %zu bytes; the tensor-core backward filter needs "
             "%zu", a->workspace_size, (size_t)splits * (size_t)g.k * (size_t)g.kred * sizeof(float));
    const int narrow = tc_narrow(g.k);
    switch (p->xdt) {
    case CUDNN_DATA_HALF:
        return narrow ? bwd_filter_launch<__half, tc_narrow_m>(p, a, g, splits, len)
                      : bwd_filter_launch<__half, tc_wide>(p, a, g, splits, len);
    case CUDNN_DATA_BFLOAT16:
        return narrow ? bwd_filter_launch<__nv_bfloat16, tc_narrow_m>(p, a, g, splits, len)
                      : bwd_filter_launch<__nv_bfloat16, tc_wide>(p, a, g, splits, len);
    default:
        return narrow ? bwd_filter_launch<float, tc_narrow_m>(p, a, g, splits, len)
                      : bwd_filter_launch<float, tc_wide>(p, a, g, splits, len);
    }
}
