/* SPDX-License-Identifier: MIT */
/*
 * conv_tc.cu - convolution as implicit GEMM on tensor cores (mma.sync m16n8k16 with float
 * accumulation, cp.async, ldmatrix: the sm_80 instruction set, which sm_90 runs too), all three
 * directions, HALF and BFLOAT16, NHWC activations and a KRSC (NHWC-format) filter. Rows:
 *   fd_conv_fwd_tc_igemm        FWD IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM    no workspace
 *   fd_conv_bwd_data_tc_igemm   BWD_DATA ALGO_0, ALGO_1                     no workspace
 *   fd_conv_bwd_filter_tc_igemm BWD_FILTER ALGO_1, ALGO_3                   split-K workspace
 * What they decline goes to the naive direct rows (conv_direct.cu).
 *
 * GEMM mappings (t: the logical tap: f for cross-correlation, FLT - 1 - f for convolution,
 * whose filter is read flipped; f: the memory tap of the KRSC filter):
 *   fwd        y[m, k]  = sum_kk A[m, kk] B[kk, k]; m = (n, od, oh, ow), kk = (f, c);
 *              A = x gathered at o * s - p + t * d (0 outside), B[kk, k] = w[k, f, c]
 *   bwd data   dx[m, c] = sum_kk A[m, kk] B[kk, c]; m = (n, id, ih, iw), kk = (f, k);
 *              A = dy at (i + p - t * d) / s when divisible and inside, B[kk, c] = w[k, f, c]
 *   bwd filter dw[k, j] = sum_m A[k, m] B[m, j];   j = (f, c), m = (n, od, oh, ow);
 *              A[k, m] = dy[m, k], B[m, j] = x gathered as in fwd; the m range is split
 *              (a fixed rule of the problem, not of the GPU) into float partial tiles in the
 *              workspace, summed in split order by a second kernel: deterministic.
 * Tile: 128 x 128 per block, 32 along the reduction, 3 stages of cp.async (A and B: 3 x 2 x
 * 8 KiB = 48 KiB of static shared memory), 8 warps of 64 x 32 (4 x 4 mma tiles). Tiles whose
 * reduction index runs along rows (B of bwd data and both operands of bwd filter) are staged
 * [32][128] and read with ldmatrix.trans. Every staged row is XOR-swizzled so the 8 rows of one
 * ldmatrix phase fall in distinct banks. ptxas (sm_90, -O3): fwd 124, bwd data 152, bwd filter
 * 128 registers, 0 spills.
 *
 * What they take (tc_applicable): groups 1; C and K multiples of 8 (16-byte chunks never
 * straddle a tap); x and dy channel-contiguous with the other strides multiples of 8 elements;
 * the filter packed KRSC; the written tensor (y, dx) any strides. A call whose read pointers
 * are not 16-byte aligned runs the direct kernel instead (selection cannot see pointers).
 * Accumulation in float like the direct kernels; alpha/beta blended in double and rounded once,
 * so integer-exact problems give the same bits as ref. Every row is deterministic.
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

static __device__ __forceinline__ void tc_ldmatrix_x4_trans(unsigned *r, const void *smem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}

/* Element (row, 8-element chunk) of a tile stored TC_BK rows of 128 elements (the transposed
 * operands: reduction index along rows), swizzled by row mod 8 so the eight rows of one
 * ldmatrix phase fall in distinct banks. */
static __device__ __forceinline__ int tc_swz128(int row, int chunk)
{
    return row * 128 + ((chunk ^ (row & 7)) << 3);
}

/* ---- mma fragments from shared tiles (16-bit elements; ks: which k16 half of the tile) ---- */

/* A, 4 m16 tiles of a warp, from [TC_BM rows][TC_BK] (row-major A: fwd, bwd data). */
static __device__ __forceinline__ void tc_frag_a(unsigned (*af)[4], const unsigned short *t, int wm,
                                                 int lane, int ks)
{
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
        tc_ldmatrix_x4(af[mi], t + tc_swz(wm * 64 + mi * 16 + (lane & 15), ks * 2 + (lane >> 4)));
}

/* A from [TC_BK][128 rows of A] (A transposed in memory: bwd filter's dy). */
static __device__ __forceinline__ void tc_frag_a_trans(unsigned (*af)[4], const unsigned short *t,
                                                       int wm, int lane, int ks)
{
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
        tc_ldmatrix_x4_trans(af[mi], t + tc_swz128(ks * 16 + (lane & 7) + ((lane >> 4) << 3),
                                                   (wm * 64 + mi * 16) / 8 + ((lane >> 3) & 1)));
}

/* B, 4 n8 tiles of a warp, from [TC_BN columns][TC_BK] (fwd: the KRSC filter rows). */
static __device__ __forceinline__ void tc_frag_b(unsigned (*bf)[2], const unsigned short *t, int wn,
                                                 int lane, int ks)
{
#pragma unroll
    for (int np = 0; np < 2; np++) {
        unsigned r[4];
        tc_ldmatrix_x4(r, t + tc_swz(wn * 32 + np * 16 + (lane & 7) + ((lane >> 4) << 3),
                                     ks * 2 + ((lane >> 3) & 1)));
        bf[2 * np][0] = r[0], bf[2 * np][1] = r[1];
        bf[2 * np + 1][0] = r[2], bf[2 * np + 1][1] = r[3];
    }
}

/* B from [TC_BK][128 columns] (bwd data: filter rows along c; bwd filter: x along c). */
static __device__ __forceinline__ void tc_frag_b_trans(unsigned (*bf)[2], const unsigned short *t,
                                                       int wn, int lane, int ks)
{
#pragma unroll
    for (int np = 0; np < 2; np++) {
        unsigned r[4];
        tc_ldmatrix_x4_trans(r, t + tc_swz128(ks * 16 + (lane & 7) + (((lane >> 3) & 1) << 3),
                                              (wn * 32 + np * 16) / 8 + (lane >> 4)));
        bf[2 * np][0] = r[0], bf[2 * np][1] = r[1];
        bf[2 * np + 1][0] = r[2], bf[2 * np + 1][1] = r[3];
    }
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

/* ---- the rows (src/impls.def) ------------------------------------------------------------ */

extern "C" cudnnStatus_t fd_conv_fwd_direct_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
extern "C" cudnnStatus_t fd_conv_bwd_data_direct_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
extern "C" cudnnStatus_t fd_conv_bwd_filter_direct_run(const fd_conv_problem_t *p,
                                                       const fd_conv_args_t *a);

/* Channel-contiguous (NHWC-like) activation tensor: C stride 1, the others multiples of 8
 * elements wherever the dim has more than one element, so 16-byte chunks stay aligned. */
static int nhwc_ok(const int64_t *st, const fd_conv_problem_t *p, const int64_t *sp, const char *name,
                   char *why, size_t why_size)
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
        if (extent > 1 && st[d] % 8 != 0) {
            snprintf(why, why_size, "%s stride %lld of dim %d is not a multiple of 8 elements", name,
                     (long long)st[d], d);
            return 0;
        }
    }
    return 1;
}

/* What every direction needs: HALF or BFLOAT16 everywhere, one group, C and K multiples of 8,
 * a packed KRSC filter, channel-contiguous x (unless skip_x) and y (unless skip_y), sizes
 * that fit the kernels' 32-bit index math. */
static int tc_applicable(const fd_conv_problem_t *p, int need_x, int need_y, char *why, size_t why_size)
{
    const cudnnDataType_t dt = p->xdt;
    if ((dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16) || p->wdt != dt || p->ydt != dt) {
        snprintf(why, why_size, "x/w/y are %s/%s/%s; the tensor-core kernels take HALF or BFLOAT16 "
                 "for all three", fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt));
        return 0;
    }
    if (p->groups != 1) {
        snprintf(why, why_size, "%lld groups; the tensor-core kernels take 1", (long long)p->groups);
        return 0;
    }
    if (p->c % 8 != 0 || p->k % 8 != 0) {
        snprintf(why, why_size, "C = %lld, K = %lld: both must be multiples of 8", (long long)p->c,
                 (long long)p->k);
        return 0;
    }
    if ((need_x && !nhwc_ok(p->xs, p, p->in, "x", why, why_size)) ||
        (need_y && !nhwc_ok(p->ys, p, p->out, "y", why, why_size)))
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
    if (big || (p->n * p->out[0] * p->out[1] * p->out[2] + TC_BM - 1) / TC_BM >= 0x7fffffff ||
        (p->n * p->in[0] * p->in[1] * p->in[2] + TC_BM - 1) / TC_BM >= 0x7fffffff ||
        (p->k + TC_BN - 1) / TC_BN > 65535 || (p->c + TC_BN - 1) / TC_BN > 65535) {
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

extern "C" cudnnStatus_t fd_conv_fwd_tc_igemm_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    if (misaligned(a->x, a->w))
        return fd_conv_fwd_direct_run(p, a); /* 16-byte copies need 16-byte alignment */
    const tc_geom_t g = tc_geom(p);
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

extern "C" cudnnStatus_t fd_conv_bwd_data_tc_igemm_run(const fd_conv_problem_t *p,
                                                       const fd_conv_args_t *a)
{
    if (misaligned(a->y, a->w))
        return fd_conv_bwd_data_direct_run(p, a);
    const tc_geom_t g = tc_geom(p);
    const dim3 grid((unsigned)((g.m + TC_BM - 1) / TC_BM), (unsigned)((g.c + TC_BN - 1) / TC_BN));
    cudaStream_t s = a->handle->stream;
    if (p->xdt == CUDNN_DATA_HALF)
        conv_bwd_data_tc_f16<<<grid, TC_THREADS, 0, s>>>(g, (const __half *)a->y, (const __half *)a->w,
                                                         (__half *)a->out, a->alpha, a->beta);
    else
        conv_bwd_data_tc_bf16<<<grid, TC_THREADS, 0, s>>>(g, (const __nv_bfloat16 *)a->y,
                                                          (const __nv_bfloat16 *)a->w,
                                                          (__nv_bfloat16 *)a->out, a->alpha, a->beta);
    FD_CUDA_LAUNCHED("conv_bwd_data_tc on %s data (grid %u x %u, stream %p)", fd_dtype_name(p->xdt),
                     grid.x, grid.y, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

/* -- backward filter: split-K through the workspace, reduced in split order -- */

/* Splits of the N*P*Q reduction: enough blocks for ~2 waves of a 132-SM part whatever the GPU
 * (a fixed target keeps the workspace size and the bits independent of the device), at least
 * 8 reduction tiles per split, at most 64 splits. */
static void bwd_filter_splits(const tc_geom_t *g, int *splits, int64_t *split_len)
{
    const int64_t tiles = ((g->k + TC_BM - 1) / TC_BM) * ((g->kred + TC_BN - 1) / TC_BN);
    int64_t s = (264 + tiles - 1) / tiles;
    const int64_t max_by_len = (g->m + 8 * TC_BK - 1) / (8 * TC_BK);
    if (s > max_by_len)
        s = max_by_len;
    if (s > 64)
        s = 64;
    if (s < 1)
        s = 1;
    int64_t len = (g->m + s - 1) / s;
    len = (len + TC_BK - 1) / TC_BK * TC_BK;
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
    const dim3 grid((unsigned)((g.kred + TC_BN - 1) / TC_BN), (unsigned)((g.k + TC_BM - 1) / TC_BM),
                    (unsigned)splits);
    const int64_t total = (int64_t)g.k * g.kred;
    const unsigned rblocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    cudaStream_t s = a->handle->stream;
    float *part = (float *)a->workspace;
    if (p->xdt == CUDNN_DATA_HALF) {
        conv_bwd_filter_tc_f16<<<grid, TC_THREADS, 0, s>>>(g, (const __half *)a->x, (const __half *)a->y,
                                                           part, len);
        FD_CUDA_LAUNCHED("conv_bwd_filter_tc on HALF data (grid %u x %u x %u)", grid.x, grid.y, grid.z);
        conv_bwd_filter_tc_reduce_f16<<<rblocks, FD_CUDA_BLOCK, 0, s>>>(g, part, splits,
                                                                        (__half *)a->out, a->alpha,
                                                                        a->beta);
    } else {
        conv_bwd_filter_tc_bf16<<<grid, TC_THREADS, 0, s>>>(g, (const __nv_bfloat16 *)a->x,
                                                            (const __nv_bfloat16 *)a->y, part, len);
        FD_CUDA_LAUNCHED("conv_bwd_filter_tc on BFLOAT16 data (grid %u x %u x %u)", grid.x, grid.y,
                         grid.z);
        conv_bwd_filter_tc_reduce_bf16<<<rblocks, FD_CUDA_BLOCK, 0, s>>>(g, part, splits,
                                                                         (__nv_bfloat16 *)a->out,
                                                                         a->alpha, a->beta);
    }
    FD_CUDA_LAUNCHED("conv_bwd_filter_tc_reduce on %s data (%u blocks, %d splits)",
                     fd_dtype_name(p->xdt), rblocks, splits);
    return CUDNN_STATUS_SUCCESS;
}
