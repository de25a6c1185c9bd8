/* SPDX-License-Identifier: MIT */
/*
 * batchnorm.cu - batch normalization on the GPU: rows fd_bn_fwd_infer_cuda, fd_bn_fwd_train_cuda
 * and fd_bn_bwd_cuda (every mode: PER_ACTIVATION, SPATIAL, SPATIAL_PERSISTENT = SPATIAL; every
 * ops value of the *Ex and v8 entries: BN, BN_ACTIVATION, BN_ADD_ACTIVATION with RELU,
 * CLIPPED_RELU, SIGMOID, TANH, ELU, SWISH), the semantics of src/ref/batchnorm_ref.c and the
 * formulas of src/core/batchnorm.h.
 *
 * Inference is one elementwise pass walked in y's memory order. Training and backward run one
 * tile of groups per block and reduce in a fixed order (two-pass statistics, then the apply
 * pass), so results are bit-reproducible and there are no atomics; the block is 1 group x 256
 * lanes when a group's members are adjacent in memory (NCHW spatial) and 32 groups x 8 lanes
 * when the groups are (NHWC spatial, per-activation), so loads coalesce either way. The
 * legacy entries pass no workspace, so the fused per-tile kernels need none; only training
 * with BN_ADD_ACTIVATION and RELU / CLIPPED_RELU takes one (mean and 1 / std per group), for
 * the reserve bits, which a byte-per-thread kernel writes so that no two threads share a byte.
 * Accumulation in double for FLOAT and DOUBLE data, as ref (a float statistic of a few nearly
 * equal values drifted past the f32 tolerance on the H200), float for HALF and BFLOAT16;
 * 1 / sqrt(var + epsilon) and every blend in double, rounded once. Any strides; 4-d and 5-d.
 *
 * Training and backward of SPATIAL / SPATIAL_PERSISTENT FLOAT, HALF, BFLOAT16 data, packed
 * NCHW (H * W a multiple of the 16-byte vector) or NHWC (C a multiple of it), ops BN or
 * BN_ACTIVATION, more than one chunk of members, given a workspace (the *Ex / v8 entries report
 * it) and 16-byte aligned data take the packed multi-block path (bn_pk_*, below): a grid of
 * (channels x fixed chunks) blocks, per-chunk partial sums in the workspace, a fixed-order
 * combine per channel, a 128-bit apply pass. The one-pass statistics there are shifted by each
 * channel's first element, in the same accumulator types.
 *
 * NHWC data on that path by default (FREEDNN_GPU_BN_PK2=0: the first mapping) takes bn_pk2_*
 * (batchnorm_kernels.cuh, after bn_pk_apply_nhwc): blocks of at most 32 vector columns (spread
 * evenly) x rpp = 256 / columns row lanes, chunks of 192 rows rounded up to whole trips of 4
 * rows x rpp (FREEDNN_GPU_BN_PK2_ROWS=R: R rows, a timing and test knob; at most 2048 chunks;
 * f16 n32c256h56w56 on the H200, 2026-12-02: 64 rows training 952 GB/s / backward 1024, 96
 * rows 1051 / 1124, 192 rows 1127 / 1229, docs/perf/gpu-membw-2026-12-02.md),
 * every thread loading its trip's 4 rows (x; dy; out when beta != 0) before their arithmetic,
 * the mode a template parameter (the statistics kernel holds no parameters, the others read
 * the block's channels' from shared memory once per trip and channel), the apply pass walking
 * the chunks against the pass before it so that pass's last rows are still in L2. n32 c256
 * 56x56 HALF, c128 FLOAT: 523 blocks of 32 columns x 8 lanes, 6 trips a lane, 4 vectors (x)
 * or 8 (x, dy) in flight a thread, against the first mapping's 512 blocks of 25 rows a lane
 * and one vector (96 registers: 2 blocks an SM). ptxas sm_80 / sm_90, no spills: statistics
 * 56-64 registers (4 blocks an SM; BFLOAT16 72: 3), gradient sums 61-118 (FLOAT 2, HALF 4,
 * BFLOAT16 3), apply 83-127 (2). Ops BN with alpha 1, beta 0 (the common call) take the lean
 * apply stampings bn_pk2_lean0_nhwc / bn_pk2_lean1_nhwc (FREEDNN_GPU_BN_PK2_LEAN=0: off): no
 * blend, no out loads, 4 (x) / 2 (x, dy) rows a trip, parameters re-read from shared memory each
 * trip (a channel's four in one 128-bit load), 54-64 registers (launch bounds 4 blocks an SM:
 * n32c256h56w56's 523 blocks in one wave), the same expressions (bn_pk_u / bn_pk_dx), so the
 * same bits: folding scale * inv and bias - mean * scale * inv into 2 values would round
 * otherwise. bn_pk2_* combine with bn_pk_combine (a
 * warp per channel); a block per channel with a fixed tree measured the same on the H200
 * (n32c256h56w56 f16 training 1535 / 1522 GB/s, 2026-12-02) and was dropped.
 * Same per-element arithmetic and trees; other chunks, so other bits (within the tests'
 * tolerance). The workspace queries report its partials (the Ex / v8 entries reject less);
 * where they fit neither the caller's workspace nor the handle's scratch (legacy entries, large
 * C) the call takes the first mapping's chunks, then the per-tile kernels.
 * The FLOAT training forward of that NHWC path with ops BN, alpha 1, beta 0 runs its three
 * launches as one cooperative launch, bn_gr_train_nhwc (FREEDNN_GPU_BN_GR; the section "the
 * grid-resident training forward" below): one chunk a CTA kept in shared memory, so read from
 * DRAM once; the same bits.
 *
 * Training forward of SPATIAL / SPATIAL_PERSISTENT FLOAT, HALF, BFLOAT16 data, packed NCHW
 * (H * W a multiple of the vector), ops BN or BN_ACTIVATION, 16-byte aligned x and y, y != x,
 * on compute capability 9.0+ (the legacy entry too, and ahead of bn_pk_*) takes bn_cl_train
 * (FREEDNN_GPU_BN_CLUSTER=0: off): one thread-block cluster of K CTAs per channel, K the
 * smallest of 2, 4, 8, 16 (8 at least while the shares keep 16 KiB: bn_cl_k8_on, 2026-12-03)
 * whose equal shares of the channel's N * H * W members fit 52 KiB
 * (4 CTAs of 256 threads an SM, whose phases overlap: 1.16-1.20x the 104-KiB shares of 2 CTAs
 * an SM on the H200, docs/perf/gpu-membw-2026-12-01.md), else 104 KiB (BN_CL_CTA_BYTES;
 * FREEDNN_GPU_BN_CL_KIB sets the first cap, 16..104); each CTA cp.async-copies its share
 * from DRAM into shared memory once, the statistics run over that copy in one pass shifted by
 * the channel's first element (FREEDNN_GPU_BN_CL_1PASS=0: bn_stats' two passes), per-CTA
 * partials in a fixed tree, exchanged through distributed shared memory and added in a fixed
 * xor tree over the K ranks (every CTA gets the same bits), and y is written from it with
 * 128-bit streaming stores: per channel N * H * W * size bytes read and as many written (plus
 * y's when beta != 0), against twice the reads of the per-tile and packed paths. Channels past
 * 16 shares (FLOAT 1.66 MB), devices that hold no such cluster (cudaOccupancyMaxActiveClusters
 * 0) and everything else keep the paths above. ptxas (sm_90): FLOAT 44 registers, HALF 37,
 * BFLOAT16 40, no spills, 160 / 80 bytes of static shared memory. The accumulator types are
 * bn_stats'; the formula (one shifted pass) and the reduction order differ, so the bits differ
 * from the per-tile kernels' (within the tests' tolerance), and a Hopper GPU gives other bits
 * than an sm_80 one. H200 (2026-12-03, dnnbench --graph): the one pass 1901 -> 2036 GB/s f16,
 * 2200 -> 2375 f32 (n32 56x56).
 *
 * Backward of the same data (SPATIAL / SPATIAL_PERSISTENT FLOAT, HALF, BFLOAT16, packed NCHW x,
 * dy, dx with H * W a multiple of the vector, ops BN or BN_ACTIVATION, 16-byte aligned,
 * dx != x, dx != dy), every entry, on compute capability 9.0+ takes bn_cl_bwd ahead of bn_pk_*
 * (FREEDNN_GPU_BN_CLUSTER_BWD=0: off): the forward's clusters and rules, each CTA copying its
 * share of x AND dy (32 bytes a vector, so K is the smallest of 2, 4, 8, 16 whose shares of
 * both fit the forward's caps: f16 n32 56x56 K = 8, f32 K = 16, 49 KiB a CTA); the saved mean and
 * 1 / std, or when NULL bn_bwd's two-pass statistics recomputed over the x copy (two more
 * cluster syncs); bn_bwd's sums of g = dy * act'(u) and g * xhat through DSMEM in the xor tree
 * (one cluster sync), rank 0 blending dscale / dbias; dx from the copies with 128-bit streaming
 * stores.
 * Per channel x and dy are read once and dx written: 3 N H W size bytes (plus dx's when
 * beta != 0), against 5 for the per-tile and packed paths. Channels of more than 832 KiB of x
 * (16 shares) keep the paths above. ptxas (sm_90): FLOAT 59 registers, HALF 48, BFLOAT16 52, no
 * spills, 192 / 96 bytes of static shared memory. The bits differ from the other paths' as the
 * forward's do.
 *
 * Inference of SPATIAL / SPATIAL_PERSISTENT FLOAT, HALF, BFLOAT16 data with x, y (and z) packed
 * NCHW (H * W a multiple of the vector) or NHWC (C a multiple of it), 16-byte aligned, takes
 * bn_iv_* (batchnorm_kernels.cuh, end): one 128-bit pass, each thread keeping its channel's (or
 * its vector column's channels') mean, 1 / std, scale and bias in registers, so 1 / sqrt runs
 * once per thread and plane instead of once per element and no N-d walker divides; the
 * per-element arithmetic is bn_fwd_infer's, the same bits. Ops BN gets its own stamping with
 * the activation code compiled out (registers). Everything else keeps bn_fwd_infer.
 * By default (FREEDNN_GPU_BN_IV2=0: the mapping above) the same data takes bn_iv2_*, the same
 * per-element arithmetic and store with more bytes in flight: every thread loads 4 vectors a
 * trip (x, z, y when beta != 0) before its parameter math; NCHW pieces (a plane, or a segment
 * of whole trips of one when the planes are fewer than two full-occupancy waves of blocks) of
 * tpp threads, the smallest power of two with 4 tpp >= the piece's vectors, each thread one
 * 1 / sqrt per piece; NHWC blocks of at most 32 vector columns (spread evenly) x 4 rpp rows a
 * trip, the block's channels' parameters computed once (a channel a thread) into shared memory.
 * Ops BN with beta 0 gets a third stamping (_bn0: no y loads). Grid: at most BN_IV2_WAVES (2)
 * full-occupancy waves (FREEDNN_GPU_BN_IV2_BLOCKS=B: B blocks, a timing and test knob).
 * Registers and occupancy: batchnorm_kernels.cuh.
 * The common call of that data (ops BN, alpha 1, beta 0; NHWC C at most BN_IV3_NHWC_C: 512
 * HALF / BFLOAT16, 256 FLOAT) takes bn_iv3_* by default (FREEDNN_GPU_BN_IV3=0: the kernels
 * above; =1 NCHW only, =2 NHWC only, 3 both; unset: NCHW and 16-bit NHWC), act_fwd_lean's
 * shape: one 16-byte vector a thread and trip, NCHW the grid covering the tensor, NHWC r3
 * trips a block (bn_iv3_trips; FREEDNN_GPU_BN_IV3_NHWC_R=R: R) so that its C-channel parameter
 * table is built once per r3 * 256 vectors, the block's channels' parameters computed once into
 * shared memory, 27-32 registers (full occupancy against bn_iv2_*'s 48-99), the same bits.
 * H200 (2026-12-02): bn_iv3_nchw f16 n32c256h56w56 3308 -> 3660 GB/s, f32 even; the one-trip
 * bn_iv3_nhwc lost f32 3623 -> 2439 (f16 even, 2905 / 2912); the r3-trip one f16 2894 -> 3465,
 * f32 3643 -> 3536 (so FLOAT NHWC keeps bn_iv2_nhwc* by default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem.cuh"
#include "pdl.cuh"
#include "splitk.cuh"
#include "strided.cuh"

extern "C" {
#include "../core/batchnorm.h"
}

/* ---- the problem as the kernels see it ---------------------------------------------------- */

typedef struct {
    int mode, propagate_nan;
    double coef, swish_beta;
} bn_act_t;

enum { BN_X = 0, BN_Y = 1, BN_Z = 2, BN_DY = 3 }; /* BN_Y: y or dx; BN_Z: z or dz */

typedef struct {
    int per_act;
    int gx, gy; /* tile: groups x member lanes, gx * gy = FD_CUDA_BLOCK */
    int nsp;    /* spatial dims after merging, 1..3 */
    int reserve_bits, reserve_aligned;
    cudnnBatchNormOps_t ops;
    bn_act_t act;
    double eps;
    int64_t n, c, s, groups, m;
    int64_t sdim[3];
    int64_t st[4][5];      /* per data slot: n, c, spatial strides */
    int64_t sb[4], mv[4];  /* parameter tensors: c, spatial strides */
} bn_geom_t;

/* The packed multi-block path (batchnorm_kernels.cuh, end): SPATIAL statistics of NCHW or
 * NHWC packed data split into fixed chunks of members. */
typedef struct {
    int nhwc;
    int v2; /* NHWC: the second mapping (bn_pk2_*, FREEDNN_GPU_BN_PK2) */
    int cols, cpb, rpp, ncg; /* NHWC: vector columns, columns per block, rows per pass, groups */
    int64_t nch;             /* chunks per channel */
    int64_t c, s, m, cm;     /* channels, spatial size, members (N * S), members per chunk */
    cudnnBatchNormOps_t ops;
    bn_act_t act;
    double eps;
    int64_t sbs, mvs; /* parameter strides along C */
} bn_pk_t;

#define BN_PK2_R 4             /* bn_pk2_*: rows (16-byte vectors per operand) a thread and trip */
#define BN_PK2_COLS 32         /* bn_pk2_*: vector columns per block, at most */
#define BN_PK2_ROWS 192        /* bn_pk2_*: rows a chunk, rounded up to BN_PK2_R * rpp */
#define BN_PK2_MAX_CHUNKS 2048 /* bn_pk2_*: chunks per channel at most */

/* The trips of a thread walking rows r0, r0 + step, ... < r1 (0 when r0 >= r1). The lean apply
 * pass walks them last to first: the statistics / gradient pass before them read each chunk's
 * rows first to last (all chunks at once: one wave), so the rows it read last are the ones L2
 * still holds. Each element's arithmetic is its own: the same bits in any order. */
static __device__ __forceinline__ int bn_pk2_trips(int r0, int r1, int step)
{
    return r1 > r0 ? (r1 - r0 + step - 1) / step : 0;
}
#define BN_PK2_LR0 4           /* bn_pk2_lean0_nhwc: rows a thread and trip (x) */
#define BN_PK2_LR1 2           /* bn_pk2_lean1_nhwc: rows a thread and trip (x, dy) */

/* The grid-resident training forward (batchnorm_kernels.cuh, bn_gr_train_nhwc): a bn_pk2_*
 * plan P, `hold` of its jobs kept in shared memory per CTA (a slot of slotv = cm * cpb 16-byte
 * vectors each), and the handle's barrier counter (zero before the launch, left at zero). */
typedef struct {
    bn_pk_t P;
    unsigned *ctr;
    int hold;
    uint32_t slotv;
} bn_gr_t;
/* bn_pk_rows_out's tree p1, p2: FD_VEC accumulators of FD_A a thread, 32 bytes for every type */
#define BN_GR_TREE_BYTES (2 * FD_CUDA_BLOCK * 32)
#define BN_GR_CTAS_SM 2 /* CTAs an SM (launch bounds) */

/* The cluster training forward (batchnorm_kernels.cuh, end): P as the packed NCHW path fills
 * it (c, s, m, ops, act, eps, parameter strides; the chunk fields unused), a cluster of k CTAs
 * per channel, CTA rank r holding member vectors [r * vpc, min((r + 1) * vpc, nv)). */
typedef struct {
    bn_pk_t P;
    int k;             /* CTAs per cluster (channel): 2, 4, 8 or 16 */
    uint32_t nv, vpc;  /* 16-byte vectors per channel, per CTA (at most) */
    int two_pass;      /* training statistics in two passes (FREEDNN_GPU_BN_CL_1PASS=0) */
} bn_cl_t;

#define BN_CL_THREADS 256                /* threads per CTA of bn_cl_train */
/* bn_cl_train's launch bounds for elements of es bytes: the 16-bit types 8 CTAs an SM (<= 32
 * registers), so that their 25-KiB shares are not held to 5 or 6 CTAs an SM by 39-48 registers
 * (dev/bn_cluster v13 / v15, H200 2026-12-03: f16 n32c256h56w56 training 5 -> 8 CTAs an SM,
 * 2198 -> 2417 GB/s); FLOAT 2 (its double sums spill at 32 registers, and its 49-KiB shares
 * fit 4 CTAs an SM either way) */
#define BN_CL_TRAIN_MINB(es) ((es) == 2 ? 8 : 2)
#define BN_CL_CTA_BYTES (104 * 1024)     /* x share per CTA at most: 2 CTAs fit an SM's 228 KiB */
#define BN_CL_CAP_BYTES (52 * 1024)      /* tried first (bn_cl_cap): 4 CTAs an SM */
#define BN_CL_KS 4                       /* cluster sizes 2, 4, 8, 16 */
#define BN_CL_MIN_SHARE (16 * 1024)      /* bn_cl_plan: 8 CTAs a channel down to this share */

/* The cluster calls of bn_cl_train: the sm_90 intrinsics that cooperative_groups'
 * cluster_group wraps (this_cluster().sync() is arrive + wait, map_shared_rank and block_rank
 * the same intrinsics); its header needs C++17 (libcu++), the library builds CUDA as C++11.
 * barrier.cluster.arrive has release semantics and wait acquire (no .relaxed), so a CTA's
 * shared-memory writes before its arrive are seen through DSMEM after the others' wait. */
#if defined(__CUDA_ARCH__)
/* cp.async (sm_80+): 16 bytes global -> shared without registers, then wait for all of this
 * thread's copies. bn_cl_train / bn_cl_bwd (sm_90 bodies) and bn_gr_train_nhwc call them. */
static __device__ __forceinline__ void bn_cl_cp16(void *smem, const void *gmem)
{
    const unsigned sa = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(gmem) : "memory");
}
static __device__ __forceinline__ void bn_cl_cp_wait(void)
{
    asm volatile("cp.async.wait_all;\n" ::: "memory");
}
#if __CUDA_ARCH__ >= 900
/* This thread's copies have landed, then the CTA's barrier: every thread sees the share
 * (bn_cl_train / bn_cl_bwd). */
static __device__ __forceinline__ void bn_cl_land(void)
{
    bn_cl_cp_wait();
    __syncthreads();
}
#endif
#endif

/* bn_gr_train_nhwc's grid barrier (its launch is cooperative: every CTA is resident): each
 * CTA adds 1 to *ctr once its threads are done, then waits until *ctr reaches target (G, then
 * 2 G). The fences order the CTA's global writes before its arrival and the others' after the
 * wait (cooperative groups' grid sync works the same way). bn_gr_exit: a third arrival, after
 * the last wait; the CTA that makes it 3 G puts the counter back to 0 (every CTA has left the
 * waits by then), for the next call that draws it. */
static __device__ __forceinline__ void bn_gr_sync(unsigned *ctr, unsigned target)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(ctr, 1u);
        while (*(volatile unsigned *)ctr < target)
            __nanosleep(32);
        __threadfence();
    }
    __syncthreads();
}
static __device__ __forceinline__ void bn_gr_exit(unsigned *ctr, unsigned all)
{
    if (threadIdx.x == 0 && atomicAdd(ctr, 1u) == all - 1)
        atomicExch(ctr, 0u);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
static __device__ __forceinline__ void bn_cl_sync(void)
{
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
}

/* CTA rank's share of its channel: member vectors [*v0, *v0 + the result), possibly none. */
static __device__ __forceinline__ int bn_cl_share(const bn_cl_t &Q, unsigned rank, uint32_t *v0)
{
    *v0 = rank * Q.vpc;
    const uint32_t v1 = *v0 + Q.vpc < Q.nv ? *v0 + Q.vpc : Q.nv;
    return *v0 < v1 ? (int)(v1 - *v0) : 0;
}
#endif

/* The packed inference pass (batchnorm_kernels.cuh, end): SPATIAL FLOAT / HALF / BFLOAT16,
 * x, y (and z) packed NCHW with H * W a multiple of the vector, or NHWC with C one. */
typedef struct {
    int nhwc, v2;                  /* v2: the bn_iv2_* mapping (FREEDNN_GPU_BN_IV2) */
    int tpp;                       /* NCHW: threads per plane (v2: piece), a power of two */
    int cols, cpb, rpp, ncg, nrb;  /* NHWC: as bn_pk_t, and the row blocks */
    int64_t c, s, planes, vps;     /* NCHW: channels, plane size, N * C, vectors per plane */
    int64_t nseg, segl, pieces;    /* NCHW v2: segments per plane, vectors per segment, total */
    int64_t grid;                  /* v2: blocks */
    int64_t rows;                  /* NHWC: N * spatial */
    cudnnBatchNormOps_t ops;
    bn_act_t act;
    double eps;
    int64_t sbs, mvs; /* parameter strides along C */
    uint32_t nv3, div3; /* bn_iv3_*: vectors; vectors a plane (NCHW) / a row (NHWC) */
    uint32_t r3, step3; /* bn_iv3_nhwc: trips a block; FD_CUDA_BLOCK % div3 */
} bn_iv_t;
#define BN_IV2_K 4     /* bn_iv2_*: vectors per thread per trip */
/* bn_iv3_nhwc: channels at most, FD_CUDA_BLOCK * vec / 4 (one parameter set per 4 elements of a
 * block at most; HALF / BFLOAT16 512, FLOAT 256: an 8-KiB table) */
#define BN_IV3_NHWC_C(vec) (FD_CUDA_BLOCK * (vec) / 4)
#define BN_IV3_R_MAX 16 /* bn_iv3_nhwc: trips a block at most (bn_iv3_trips' choice) */
#define BN_IV3_WAVES 2  /* bn_iv3_nhwc: full-occupancy waves at least, when it takes r > 1 */
#define BN_IV2_COLS 32 /* bn_iv2_nhwc*: vector columns per block, at most */
#define BN_IV2_WAVES 2 /* bn_iv2_*: grid cap in full-occupancy waves */

static __device__ __forceinline__ int64_t bn_sp(const bn_geom_t &G, const int64_t *sst, int64_t s)
{
    if (G.nsp == 1)
        return s * sst[0];
    uint32_t r = (uint32_t)s;
    int64_t o = 0;
    for (int i = G.nsp - 1; i > 0; i--) {
        const uint32_t d = (uint32_t)G.sdim[i], q = r / d;
        o += (int64_t)(r - q * d) * sst[i];
        r = q;
    }
    return o + (int64_t)r * sst[0];
}

/* Member k of group g: (n, c, s). */
static __device__ __forceinline__ void bn_member(const bn_geom_t &G, int64_t g, int64_t k,
                                                 int64_t *n, int64_t *c, int64_t *s)
{
    if (G.per_act) {
        const uint32_t q = (uint32_t)g / (uint32_t)G.s;
        *n = k, *c = q, *s = (int64_t)((uint32_t)g - q * (uint32_t)G.s);
    } else {
        const uint32_t q = (uint32_t)k / (uint32_t)G.s;
        *n = q, *c = g, *s = (int64_t)((uint32_t)k - q * (uint32_t)G.s);
    }
}

static __device__ __forceinline__ int64_t bn_elem_off(const bn_geom_t &G, int slot, int64_t g,
                                                      int64_t k)
{
    int64_t n, c, s;
    bn_member(G, g, k, &n, &c, &s);
    return n * G.st[slot][0] + c * G.st[slot][1] + bn_sp(G, &G.st[slot][2], s);
}

/* The element's index in N, C, spatial order (the reserve space's order). */
static __device__ __forceinline__ int64_t bn_elem_index(const bn_geom_t &G, int64_t g, int64_t k)
{
    int64_t n, c, s;
    bn_member(G, g, k, &n, &c, &s);
    return (n * G.c + c) * G.s + s;
}

static __device__ __forceinline__ int64_t bn_param_off(const bn_geom_t &G, const int64_t *pt,
                                                       int64_t g)
{
    if (!G.per_act)
        return g * pt[0];
    const uint32_t q = (uint32_t)g / (uint32_t)G.s;
    return (int64_t)q * pt[0] + bn_sp(G, pt + 1, (int64_t)((uint32_t)g - q * (uint32_t)G.s));
}

/* ---- the fused activation (core/activation.h's definitions, in the accumulator type) ------- */

#define BN_ACT_FUNCS(A, EXP, EXPM1, TANH)                                                     \
    static __device__ __forceinline__ A bn_sigmoid(A x)                                        \
    {                                                                                          \
        return (A)1 / ((A)1 + EXP(-x));                                                        \
    }                                                                                          \
    static __device__ __forceinline__ A bn_act_fwd(const bn_act_t &a, A x)                     \
    {                                                                                          \
        const A coef = (A)a.coef;                                                              \
        switch (a.mode) {                                                                      \
        case CUDNN_ACTIVATION_SIGMOID:                                                         \
            return bn_sigmoid(x);                                                              \
        case CUDNN_ACTIVATION_RELU:                                                            \
            if (a.propagate_nan && isnan(x))                                                   \
                return x;                                                                      \
            return x > (A)0 ? x : (A)0;                                                        \
        case CUDNN_ACTIVATION_TANH:                                                            \
            return TANH(x);                                                                    \
        case CUDNN_ACTIVATION_CLIPPED_RELU: {                                                  \
            if (a.propagate_nan && (isnan(x) || isnan(coef)))                                  \
                return (A)NAN;                                                                 \
            const A v = x > (A)0 ? x : (A)0;                                                   \
            return v > coef ? coef : v;                                                        \
        }                                                                                      \
        case CUDNN_ACTIVATION_ELU:                                                             \
            return x > (A)0 ? x : coef * EXPM1(x);                                             \
        case CUDNN_ACTIVATION_SWISH: {                                                         \
            const A b = (A)a.swish_beta;                                                       \
            const A s = bn_sigmoid(b == (A)0 ? (A)0 : b * x);                                  \
            return s == (A)0 ? (A)0 : x * s;                                                   \
        }                                                                                      \
        default:                                                                               \
            return x;                                                                          \
        }                                                                                      \
    }                                                                                          \
    /* d act / du; RELU / CLIPPED_RELU give 0 at a NaN u, as the reserve bit does */           \
    static __device__ __forceinline__ A bn_act_slope(const bn_act_t &a, A u)                   \
    {                                                                                          \
        const A coef = (A)a.coef;                                                              \
        switch (a.mode) {                                                                      \
        case CUDNN_ACTIVATION_RELU:                                                            \
            return u > (A)0 ? (A)1 : (A)0;                                                     \
        case CUDNN_ACTIVATION_CLIPPED_RELU:                                                    \
            return u > (A)0 && !(u >= coef) ? (A)1 : (A)0;                                     \
        case CUDNN_ACTIVATION_SIGMOID: {                                                       \
            const A y = bn_sigmoid(u);                                                         \
            return y * ((A)1 - y);                                                             \
        }                                                                                      \
        case CUDNN_ACTIVATION_TANH: {                                                          \
            const A y = TANH(u);                                                               \
            return (A)1 - y * y;                                                               \
        }                                                                                      \
        case CUDNN_ACTIVATION_ELU:                                                             \
            return u > (A)0 ? (A)1 : coef * EXP(u);                                            \
        case CUDNN_ACTIVATION_SWISH: {                                                         \
            const A b = (A)a.swish_beta, s = bn_sigmoid(b == (A)0 ? (A)0 : b * u);             \
            if (isinf(u))                                                                      \
                return s;                                                                      \
            return s + b * u * s * ((A)1 - s);                                                 \
        }                                                                                      \
        default:                                                                               \
            return (A)1;                                                                       \
        }                                                                                      \
    }
BN_ACT_FUNCS(float, expf, expm1f, tanhf)
BN_ACT_FUNCS(double, exp, expm1, tanh)
#undef BN_ACT_FUNCS

/* ---- reserve space (layout in src/core/batchnorm.h) --------------------------------------- */

static __device__ __forceinline__ void bn_reserve_put_u(const bn_geom_t &G, void *reserve, int64_t e,
                                                        double u)
{
    if (G.reserve_aligned) {
        ((double *)reserve)[e] = u;
        return;
    }
    const unsigned long long b = (unsigned long long)__double_as_longlong(u);
    unsigned char *p = (unsigned char *)reserve + e * 8;
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(b >> (8 * i));
}

static __device__ __forceinline__ double bn_reserve_get_u(const bn_geom_t &G, const void *reserve,
                                                          int64_t e)
{
    if (G.reserve_aligned)
        return ((const double *)reserve)[e];
    const unsigned char *p = (const unsigned char *)reserve + e * 8;
    unsigned long long b = 0;
    for (int i = 0; i < 8; i++)
        b |= (unsigned long long)p[i] << (8 * i);
    return __longlong_as_double((long long)b);
}

/* g = dy * act'(u) of member k of group g. */
#define BN_GRAD_IN(A)                                                                          \
    static __device__ __forceinline__ A bn_grad_in(const bn_geom_t &G, A dy, A xhat, A sc, A bi, \
                                                   const void *reserve, int64_t g, int64_t k)  \
    {                                                                                          \
        if (G.ops == CUDNN_BATCHNORM_OPS_BN_ACTIVATION)                                        \
            return dy * bn_act_slope(G.act, sc * xhat + bi);                                   \
        if (G.ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)                                    \
            return dy;                                                                         \
        const int64_t e = bn_elem_index(G, g, k);                                              \
        if (G.reserve_bits)                                                                    \
            return ((((const unsigned char *)reserve)[e >> 3] >> (e & 7)) & 1u) ? dy : dy * (A)0; \
        return dy * bn_act_slope(G.act, (A)bn_reserve_get_u(G, reserve, e));                   \
    }
BN_GRAD_IN(float)
BN_GRAD_IN(double)
#undef BN_GRAD_IN

/* out[l] = v for alpha 1, beta 0 (bn_st1): sd_blend's bits without its double arithmetic, whose
 * conversions run at the FP64 rate: the packed apply pass (bn_pk_out) and the cluster kernels.
 * alpha * v rounded is v; the 16-bit types' accumulator float holds v exactly, so one rounding
 * from float is sd_st's one rounding from double; a NaN is stored as sd_st's canonical one with
 * v's sign. The inference pass keeps sd_blend: with bn_st1 its f16 NCHW row ran 2682 GB/s
 * against 2878 in an earlier call of the same session (NVIDIA 1637 / 1685), a loss within
 * reach of noise that no same-run A/B settled. */
static __device__ __forceinline__ void bn_st1(float *p, int l, double v)
{
    p[l] = (float)v;
}
static __device__ __forceinline__ void bn_st1(double *p, int l, double v)
{
    p[l] = v;
}
static __device__ __forceinline__ void bn_st1(__half *p, int l, float v)
{
    if (isnan(v))
        sd_st(p, l, (double)v);
    else
        p[l] = __float2half_rn(v);
}
static __device__ __forceinline__ void bn_st1(__nv_bfloat16 *p, int l, float v)
{
    if (isnan(v))
        sd_st(p, l, (double)v);
    else
        p[l] = __float2bfloat16_rn(v);
}
/* bn_st1's bits without its branch (the NaN a select; the lean apply pass, whose branches per
 * element held registers): sd_st's canonical NaN 0x7e00 / 0x7fc0 with v's sign. */
static __device__ __forceinline__ void bn_st1s(float *p, int l, double v)
{
    bn_st1(p, l, v);
}
static __device__ __forceinline__ void bn_st1s(double *p, int l, double v)
{
    bn_st1(p, l, v);
}
static __device__ __forceinline__ void bn_st1s(__half *p, int l, float v)
{
    const unsigned short h = __half_as_ushort(__float2half_rn(v));
    const unsigned short q = (unsigned short)((__float_as_uint(v) >> 16 & 0x8000u) | 0x7e00u);
    p[l] = __ushort_as_half(isnan(v) ? q : h);
}
static __device__ __forceinline__ void bn_st1s(__nv_bfloat16 *p, int l, float v)
{
    const unsigned short h = __bfloat16_as_ushort(__float2bfloat16_rn(v));
    const unsigned short q = (unsigned short)((__float_as_uint(v) >> 16 & 0x8000u) | 0x7fc0u);
    p[l] = __ushort_as_bfloat16(isnan(v) ? q : h);
}

/* Four consecutive shared words at p (16-byte aligned for float, 32 for double) with 128-bit
 * shared loads, re-read each call (volatile asm: never hoisted out of a loop, so the lean
 * passes keep no parameter registers across their rows). */
static __device__ __forceinline__ void bn_lds4(const float *p, float *o)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(o[0]), "=f"(o[1]), "=f"(o[2]), "=f"(o[3])
                 : "r"(a));
}
static __device__ __forceinline__ void bn_lds4(const double *p, double *o)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ld.shared.v2.f64 {%0, %1}, [%4];\n\tld.shared.v2.f64 {%2, %3}, [%4+16];"
                 : "=d"(o[0]), "=d"(o[1]), "=d"(o[2]), "=d"(o[3])
                 : "r"(a));
}

/* bn_iv3_nhwc's parameter table of N entries (mean, inv, sc, bi) in 16-byte units: float one
 * unit an entry (entry e at t + 4 e), double two ((mean, inv) at t + 2 e, (sc, bi) at
 * t + 2 (N + e)), so a warp's lanes on consecutive entries touch consecutive 16-byte units with
 * each 128-bit store and load: no bank conflicts either way. bn_tab_get re-reads (bn_lds4). */
template <unsigned N>
static __device__ __forceinline__ void bn_tab_put(float *t, uint32_t e, float m, float i, float s,
                                                  float b)
{
    *(float4 *)(t + 4 * e) = make_float4(m, i, s, b);
}
template <unsigned N>
static __device__ __forceinline__ void bn_tab_put(double *t, uint32_t e, double m, double i,
                                                  double s, double b)
{
    *(double2 *)(t + 2 * e) = make_double2(m, i);
    *(double2 *)(t + 2 * (N + e)) = make_double2(s, b);
}
template <unsigned N>
static __device__ __forceinline__ void bn_tab_get(const float *t, uint32_t e, float *o)
{
    bn_lds4(t + 4 * e, o);
}
template <unsigned N>
static __device__ __forceinline__ void bn_tab_get(const double *t, uint32_t e, double *o)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(t + 2 * e);
    asm volatile("ld.shared.v2.f64 {%0, %1}, [%4];\n\tld.shared.v2.f64 {%2, %3}, [%4+%5];"
                 : "=d"(o[0]), "=d"(o[1]), "=d"(o[2]), "=d"(o[3])
                 : "r"(a), "n"(16 * N));
}

/* ---- the kernels, once per data type -------------------------------------------------------- */

#define FD_BN_CLUSTER /* bn_cl_train, bn_cl_bwd for FLOAT, HALF, BFLOAT16 */
#define FD_BN_IV3     /* bn_iv3_* for the same three */
#define FD_T float
#define FD_P float
#define FD_A double /* as ref: float statistics of a few ill-conditioned values drift visibly */
#define FD_SFX f32
#include "batchnorm_kernels.cuh"
#undef FD_T
#undef FD_P
#undef FD_A
#undef FD_SFX
#undef FD_BN_CLUSTER
#undef FD_BN_IV3

#define FD_T double
#define FD_P double
#define FD_A double
#define FD_SFX f64
#include "batchnorm_kernels.cuh"
#undef FD_T
#undef FD_P
#undef FD_A
#undef FD_SFX

#define FD_BN_CLUSTER
#define FD_BN_IV3
#define FD_T __half
#define FD_P float
#define FD_A float
#define FD_SFX f16
#include "batchnorm_kernels.cuh"
#undef FD_T
#undef FD_P
#undef FD_A
#undef FD_SFX

#define FD_T __nv_bfloat16
#define FD_P float
#define FD_A float
#define FD_SFX bf16
#define FD_BN_NHWC_BN_MINB 2
#define FD_BN_BF16_MINB_LESS 1
#include "batchnorm_kernels.cuh"
#undef FD_T
#undef FD_P
#undef FD_A
#undef FD_SFX
#undef FD_BN_CLUSTER
#undef FD_BN_IV3

/* Launches kernel_<dtype> (blocks of FD_CUDA_BLOCK) on the stream and checks the launch. */
#define BN_LAUNCH(dt, kernel, blocks, stream, ...)                                             \
    FD_CUDA_TYPED_LAUNCH(dt, kernel, blocks, FD_CUDA_BLOCK, stream, __VA_ARGS__)

/* BN_LAUNCH as a programmatic dependent of the stream's previous kernel (pdl.cuh): the kernel
 * calls fd_pdl_wait before it touches what that kernel wrote. */
#define BN_LAUNCH_PDL(dt, kernel, blocks, stream, ...)                                             \
    do {                                                                                           \
        cudaError_t bn_e_;                                                                         \
        const dim3 bn_g_((unsigned)(blocks)), bn_b_(FD_CUDA_BLOCK);                                \
        switch (dt) {                                                                              \
        case CUDNN_DATA_FLOAT:                                                                     \
            bn_e_ = fd_cuda_launch_pdl(kernel##_f32, bn_g_, bn_b_, 0, (stream), __VA_ARGS__);      \
            break;                                                                                 \
        case CUDNN_DATA_DOUBLE:                                                                    \
            bn_e_ = fd_cuda_launch_pdl(kernel##_f64, bn_g_, bn_b_, 0, (stream), __VA_ARGS__);      \
            break;                                                                                 \
        case CUDNN_DATA_HALF:                                                                      \
            bn_e_ = fd_cuda_launch_pdl(kernel##_f16, bn_g_, bn_b_, 0, (stream), __VA_ARGS__);      \
            break;                                                                                 \
        case CUDNN_DATA_BFLOAT16:                                                                  \
            bn_e_ = fd_cuda_launch_pdl(kernel##_bf16, bn_g_, bn_b_, 0, (stream), __VA_ARGS__);     \
            break;                                                                                 \
        default:                                                                                   \
            return fd_error(CUDNN_STATUS_NOT_SUPPORTED, __FILE__, __LINE__, "%s has no %s kernel", \
                            #kernel, fd_dtype_name(dt));                                           \
        }                                                                                          \
        FD_CUDA_LAUNCHED_AS(bn_e_, "%s on %s data (%u blocks of %u, stream %p)", #kernel,          \
                            fd_dtype_name(dt), (unsigned)(blocks), (unsigned)FD_CUDA_BLOCK,        \
                            (void *)(stream));                                                     \
    } while (0)

/* ---- host side -------------------------------------------------------------------------------- */

static int64_t iabs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* The data tensors in use: slot -> descriptor (nb_dims 0 when unused). */
static void bn_slots(const fd_bn_problem_t *p, const struct cudnnTensorStruct *t[4])
{
    t[BN_X] = &p->x;
    t[BN_Y] = p->dir == FD_BN_BWD ? &p->dx : &p->y;
    t[BN_Z] = p->dir == FD_BN_BWD ? &p->dz : &p->z;
    t[BN_DY] = &p->dy;
}

/* The fused activation's parameters as the kernels take them. */
static bn_act_t bn_act_of(const fd_bn_problem_t *p)
{
    bn_act_t a;
    a.mode = (int)p->act.mode;
    a.propagate_nan = p->act.propagate_nan;
    a.coef = p->act.coef;
    a.swish_beta = p->act.swish_beta;
    return a;
}

static void bn_geom(bn_geom_t *G, const fd_bn_problem_t *p)
{
    memset(G, 0, sizeof *G);
    const struct cudnnTensorStruct *x = &p->x, *t[4];
    bn_slots(p, t);
    const int nb = x->nb_dims;
    G->per_act = p->per_activation;
    G->ops = p->ops;
    G->act = bn_act_of(p);
    G->eps = p->epsilon;
    G->n = x->dim[0], G->c = x->dim[1], G->s = 1;
    for (int i = 2; i < nb; i++)
        G->s *= x->dim[i];
    G->groups = G->per_act ? G->c * G->s : G->c;
    G->m = G->per_act ? G->n : G->n * G->s;
    /* Merge spatial dims that nest in every tensor in use (the parameters too per activation):
     * a packed spatial block becomes one dim and costs no division. */
    int64_t sdim[3], sst[6][3];
    const struct cudnnTensorStruct *all[6] = {t[0], t[1], t[2], t[3], &p->sb, &p->mv};
    const int nt = G->per_act ? 6 : 4;
    int nsp = 0;
    for (int i = 2; i < nb; i++) {
        int merge = nsp > 0;
        for (int j = 0; j < nt && merge; j++)
            if (all[j]->nb_dims > 0 && sst[j][nsp - 1] != (int64_t)all[j]->stride[i] * x->dim[i])
                merge = 0;
        if (merge) {
            sdim[nsp - 1] *= x->dim[i];
            for (int j = 0; j < nt; j++)
                sst[j][nsp - 1] = all[j]->nb_dims > 0 ? all[j]->stride[i] : 0;
        } else {
            sdim[nsp] = x->dim[i];
            for (int j = 0; j < nt; j++)
                sst[j][nsp] = all[j]->nb_dims > 0 ? all[j]->stride[i] : 0;
            nsp++;
        }
    }
    G->nsp = nsp;
    for (int i = 0; i < nsp; i++)
        G->sdim[i] = sdim[i];
    for (int j = 0; j < 4; j++) {
        if (t[j]->nb_dims == 0)
            continue;
        G->st[j][0] = t[j]->stride[0];
        G->st[j][1] = t[j]->stride[1];
        for (int i = 0; i < nsp; i++)
            G->st[j][2 + i] = sst[j][i];
    }
    G->sb[0] = p->sb.stride[1];
    G->mv[0] = p->mv.stride[1];
    if (G->per_act)
        for (int i = 0; i < nsp; i++)
            G->sb[1 + i] = sst[4][i], G->mv[1 + i] = sst[5][i];
    /* Which lanes run along memory: members (1 x 256) or groups (32 x 8). */
    const int64_t inner_sp = G->s > 1 ? iabs64(G->st[BN_X][1 + nsp]) : INT64_MAX;
    int64_t group_stride, member_stride;
    if (G->per_act) {
        group_stride = G->s > 1 ? inner_sp : iabs64(x->stride[1]);
        member_stride = iabs64(x->stride[0]);
    } else {
        group_stride = iabs64(x->stride[1]);
        member_stride = G->s > 1 ? inner_sp : iabs64(x->stride[0]);
    }
    const int by_groups = group_stride < member_stride && G->groups > 1;
    G->gx = by_groups ? 32 : 1;
    G->gy = FD_CUDA_BLOCK / G->gx;
    G->reserve_bits = fd_bn_act_is_binary(p->act.mode);
}

static size_t acc_size(const fd_bn_problem_t *p)
{
    return p->x.dtype == CUDNN_DATA_DOUBLE || p->x.dtype == CUDNN_DATA_FLOAT ? sizeof(double)
                                                                              : sizeof(float);
}

static int bn_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_bn_problem_t *p = (const fd_bn_problem_t *)problem;
    const cudnnDataType_t dt = p->x.dtype;
    if (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_DOUBLE && dt != CUDNN_DATA_HALF &&
        dt != CUDNN_DATA_BFLOAT16) {
        snprintf(why, why_size, "x is %s; the batch-norm kernels take FLOAT, DOUBLE, HALF, BFLOAT16",
                 fd_dtype_name(dt));
        return 0;
    }
    const cudnnDataType_t pt = dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    if (p->sb.dtype != pt || p->mv.dtype != pt) {
        snprintf(why, why_size, "the parameters are %s/%s; %s data takes %s", fd_dtype_name(p->sb.dtype),
                 fd_dtype_name(p->mv.dtype), fd_dtype_name(dt), fd_dtype_name(pt));
        return 0;
    }
    if (p->x.nb_dims < 3 || p->x.nb_dims > 5) {
        snprintf(why, why_size, "x has %d dims; the batch-norm kernels take 3 to 5", p->x.nb_dims);
        return 0;
    }
    return 1;
}

/* Only training with BN_ADD_ACTIVATION and a 0/1 derivative: mean and 1 / std per group. */
static size_t train_workspace(const fd_bn_problem_t *p)
{
    if (p->ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION || !fd_bn_act_is_binary(p->act.mode))
        return 0;
    int64_t groups = p->x.dim[1];
    if (p->per_activation)
        for (int i = 2; i < p->x.nb_dims; i++)
            groups *= p->x.dim[i];
    return (size_t)groups * 2 * acc_size(p);
}

/* ---- the packed multi-block path ------------------------------------------------------------
 * Few channels of many members (C = 64, N * H * W = 32 * 112 * 112) leave the per-tile kernels
 * with a block per channel. With a workspace (the *Ex and v8 entries) the statistics split
 * into fixed chunks instead: pass 1 a block per (channels, chunk) writes shifted partial sums
 * (x - K, (x - K)^2, K the channel's first element) or the gradient sums into the workspace,
 * pass 2 a warp per channel adds them in a fixed order, pass 3 normalises with 128-bit
 * vectors. The chunk size is a rule of the problem (8192 members NCHW, 16384 / C rows NHWC,
 * grown so that a channel has at most BN_PK_MAX_CHUNKS chunks), never of the device, so the
 * bits do not depend on the GPU. The legacy entries pass no workspace, and a grid-wide
 * reduction needs somewhere to put its partials that is neither an output (y may be x, and
 * beta may read it) nor library-wide global memory (concurrent streams would share it): they
 * use the handle's own scratch (src/core/fd.h, made with the handle, its use ordered across
 * cudnnSetStream) when the partials fit, which the chunk cap makes true up to C = 1984 in
 * FLOAT; the same chunk rule, so a legacy call gives the *Ex call's bits. Otherwise (no
 * scratch, more channels, misaligned data) they keep the per-tile kernels. */

#define BN_PK_CHUNK_NCHW 8192  /* members per chunk, a multiple of every vector width */
#define BN_PK_CHUNK_NHWC 16384 /* elements per chunk (rows = this / C) */
#define BN_PK_MAX_CHUNKS 512   /* chunks per channel at most: bounds the partials */

/* 1 when t is packed NCHW (nhwc 0) or NHWC (nhwc 1) over x's dims (dims of extent 1 free). */
static int bn_pk_packed(const struct cudnnTensorStruct *t, const struct cudnnTensorStruct *x,
                        int nhwc)
{
    const int nb = x->nb_dims;
    if (t->nb_dims != nb)
        return 0;
    const int64_t c = x->dim[1];
    int64_t want = nhwc ? c : 1;
    for (int i = nb - 1; i >= 2; i--) {
        if (x->dim[i] > 1 && t->stride[i] != want)
            return 0;
        want *= x->dim[i];
    }
    if (nhwc) {
        if (c > 1 && t->stride[1] != 1)
            return 0;
    } else {
        if (c > 1 && t->stride[1] != want)
            return 0;
        want *= c;
    }
    return x->dim[0] == 1 || t->stride[0] == want;
}

/* The fields of *P that do not depend on the chunking: ops, activation, epsilon, parameter
 * strides. */
static void bn_pk_params(const fd_bn_problem_t *p, bn_pk_t *P)
{
    P->ops = p->ops;
    P->act = bn_act_of(p);
    P->eps = p->epsilon;
    P->sbs = p->sb.stride[1];
    P->mvs = p->mv.stride[1];
}

/* FREEDNN_GPU_BN_PK2 (default on; 0: the first NHWC mapping), read once. */
static int bn_pk2_env(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_BN_PK2");
    return on;
}

/* FREEDNN_GPU_BN_PK2_LEAN (default on; 0: bn_pk2_apply*_nhwc for every call), read once. */
static int bn_pk2_lean_env(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_BN_PK2_LEAN");
    return on;
}

/* Whether the lean apply pass walks a chunk's trips last to first (bn_pk2_trips; the bit 2 of
 * its rev argument): FREEDNN_GPU_BN_PK2_BACK=0 walks them first to last (the order before). */
static int bn_pk2_back_env(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_BN_PK2_BACK");
    return on;
}

/* bn_pk2_*'s rows a chunk before rounding: FREEDNN_GPU_BN_PK2_ROWS when set to a positive
 * count (a knob for timing and for the tests; it changes the chunking, so the bits), else
 * BN_PK2_ROWS; read once. */
static int64_t bn_pk2_rows_read(void)
{
    return fd_env_long("FREEDNN_GPU_BN_PK2_ROWS", 1, (1L << 24) - 1, BN_PK2_ROWS);
}
static int64_t bn_pk2_rows(void)
{
    static const int64_t rows = bn_pk2_rows_read();
    return rows;
}

/* NHWC vector columns split into ncg groups of at most `most` columns spread evenly: cpb columns
 * a block, rpp = FD_CUDA_BLOCK / cpb rows a pass (bn_pk2_* and bn_iv2_nhwc*). */
static void bn_col_groups(int64_t cols, int most, int *ncols, int *ncg, int *cpb, int *rpp)
{
    *ncols = (int)cols;
    *ncg = (*ncols + most - 1) / most;
    *cpb = (*ncols + *ncg - 1) / *ncg;
    *rpp = FD_CUDA_BLOCK / *cpb;
}

/* Fills *P and returns 1 when the packed path serves p (pointer alignment aside); v2: NHWC
 * data takes bn_pk2_*'s mapping and chunks. */
static int bn_pk_plan_v(const fd_bn_problem_t *p, bn_pk_t *P, int v2)
{
    const cudnnDataType_t dt = p->x.dtype;
    if (p->per_activation || p->dir == FD_BN_INFER ||
        p->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ||
        (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16))
        return 0;
    const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt);
    int64_t c = p->x.dim[1], sp = 1;
    for (int i = 2; i < p->x.nb_dims; i++)
        sp *= p->x.dim[i];
    const int64_t m = p->x.dim[0] * sp;
    if (m * c >= ((int64_t)1 << 31))
        return 0; /* 32-bit member arithmetic in the kernels */
    const struct cudnnTensorStruct *t[3] = {&p->x, p->dir == FD_BN_BWD ? &p->dx : &p->y,
                                            p->dir == FD_BN_BWD ? &p->dy : &p->x};
    int lay = -1;
    for (int nhwc = 0; nhwc < 2 && lay < 0; nhwc++) {
        if (nhwc ? c % vec != 0 : sp % vec != 0)
            continue;
        int ok = 1;
        for (int j = 0; j < 3; j++)
            ok = ok && bn_pk_packed(t[j], &p->x, nhwc);
        if (ok)
            lay = nhwc;
    }
    if (lay < 0)
        return 0;
    memset(P, 0, sizeof *P);
    P->nhwc = lay;
    P->c = c, P->s = sp, P->m = m;
    int64_t unit = lay ? 1 : BN_PK_CHUNK_NCHW, most = BN_PK_MAX_CHUNKS;
    if (lay && v2) { /* groups of <= BN_PK2_COLS columns spread evenly, whole trips a chunk */
        P->v2 = 1;
        bn_col_groups(c / vec, BN_PK2_COLS, &P->cols, &P->ncg, &P->cpb, &P->rpp);
        unit = (int64_t)BN_PK2_R * P->rpp, most = BN_PK2_MAX_CHUNKS;
        P->cm = (bn_pk2_rows() + unit - 1) / unit * unit;
    } else if (lay) {
        P->cols = (int)(c / vec);
        P->cpb = P->cols < FD_CUDA_BLOCK ? P->cols : FD_CUDA_BLOCK;
        P->rpp = FD_CUDA_BLOCK / P->cpb;
        P->ncg = (P->cols + P->cpb - 1) / P->cpb;
        P->cm = BN_PK_CHUNK_NHWC / c > 1 ? BN_PK_CHUNK_NHWC / c : 1;
    } else {
        P->cm = BN_PK_CHUNK_NCHW;
    }
    P->nch = (m + P->cm - 1) / P->cm;
    if (P->nch > most) { /* longer chunks, same multiple (NCHW: of the vector; v2: of a trip) */
        const int64_t want = (m + most - 1) / most;
        P->cm = (want + unit - 1) / unit * unit;
        P->nch = (m + P->cm - 1) / P->cm;
    }
    if (P->nch < 2)
        return 0; /* one chunk: the per-tile kernels already give it a whole block */
    bn_pk_params(p, P);
    return 1;
}
static int bn_pk_plan(const fd_bn_problem_t *p, bn_pk_t *P)
{
    return bn_pk_plan_v(p, P, bn_pk2_env());
}

/* Per channel 4 statistics (mean, 1 / std, mean of g, mean of g * xhat), then 2 partial sums
 * per (channel, chunk), in the accumulator type. */
static size_t bn_pk_workspace(const fd_bn_problem_t *p, const bn_pk_t *P)
{
    return (size_t)(4 * P->c + 2 * P->c * P->nch) * acc_size(p);
}

/* 1 when a call may take the packed path: a plan, enough workspace (the caller's, else the
 * handle's scratch: *b is then a's copy pointing at it), 16-byte aligned data. A bn_pk2_* plan
 * whose partials fit neither falls back to the first mapping's (fewer chunks), then to none. */
static int bn_pk_usable(const fd_bn_problem_t *p, const fd_bn_args_t *a, bn_pk_t *P, fd_bn_args_t *b)
{
    if (!bn_pk_plan(p, P))
        return 0;
    const int bwd = p->dir == FD_BN_BWD;
    if (!fd_cuda_aligned16(a->x) || !fd_cuda_aligned16(bwd ? a->dx : a->y) || (bwd && !fd_cuda_aligned16(a->dy)))
        return 0;
    const cudnnHandle_t h = a->handle;
    for (;;) {
        const size_t need = bn_pk_workspace(p, P);
        *b = *a;
        if (a->workspace != NULL && a->workspace_size >= need && fd_cuda_aligned16(a->workspace))
            return 1;
        if (h->scratch != NULL && h->scratch_size >= need) {
            b->workspace = h->scratch, b->workspace_size = h->scratch_size;
            return 1;
        }
        if (!P->v2 || !bn_pk_plan_v(p, P, 0))
            return 0;
    }
}

/* rev: bn_pk2_* walk the chunks last to first (the other mappings ignore it). */
static cudnnStatus_t bn_pk_pass(const fd_bn_problem_t *p, const bn_pk_t &P, const fd_bn_args_t *a,
                                int mode, const void *smean, const void *sinv, int rev)
{
    const cudnnDataType_t dt = p->x.dtype;
    cudaStream_t st = a->handle->stream;
    const unsigned blocks = (unsigned)((P.nhwc ? P.ncg : P.c) * P.nch);
    if (P.v2 && mode == 0)
        BN_LAUNCH(dt, bn_pk2_part0_nhwc, blocks, st, P, rev, a->x, a->dy, a->scale, a->bias, smean,
                  sinv, a->workspace);
    else if (P.v2)
        BN_LAUNCH(dt, bn_pk2_part1_nhwc, blocks, st, P, rev, a->x, a->dy, a->scale, a->bias, smean,
                  sinv, a->workspace);
    else if (P.nhwc)
        BN_LAUNCH(dt, bn_pk_part_nhwc, blocks, st, P, mode, a->x, a->dy, a->scale, a->bias, smean,
                  sinv, a->workspace);
    else
        BN_LAUNCH(dt, bn_pk_part_nchw, blocks, st, P, mode, a->x, a->dy, a->scale, a->bias, smean,
                  sinv, a->workspace);
    const unsigned cblocks = (unsigned)((P.c + FD_CUDA_BLOCK / 32 - 1) / (FD_CUDA_BLOCK / 32));
    if (mode == 0)
        BN_LAUNCH_PDL(dt, bn_pk_combine, cblocks, st, P, 0, a->x, a->workspace,
                      p->dir == FD_BN_TRAIN, a->run_mean, a->run_var, a->save_mean, a->save_inv,
                      a->factor, NULL, NULL, 0.0, 0.0);
    else
        BN_LAUNCH_PDL(dt, bn_pk_combine, cblocks, st, P, 1, a->x, a->workspace, 0, NULL, NULL, NULL,
                      NULL, 0.0, a->dscale, a->dbias, a->alpha_param, a->beta_param);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t bn_pk_apply(const fd_bn_problem_t *p, const bn_pk_t &P,
                                 const fd_bn_args_t *a, int mode, const void *smean,
                                 const void *sinv, int rev)
{
    const cudnnDataType_t dt = p->x.dtype;
    cudaStream_t st = a->handle->stream;
    const unsigned blocks = (unsigned)((P.nhwc ? P.ncg : P.c) * P.nch);
    void *out = mode == 0 ? a->y : a->dx;
    const int lean = P.v2 && P.ops == CUDNN_BATCHNORM_OPS_BN && a->alpha == 1.0 && a->beta == 0.0 &&
                     bn_pk2_lean_env();
    const int lrev = rev | (bn_pk2_back_env() ? 2 : 0);
    if (lean && mode == 0)
        BN_LAUNCH_PDL(dt, bn_pk2_lean0_nhwc, blocks, st, P, lrev, a->x, a->dy, out, a->scale,
                      a->bias, smean, sinv, a->workspace);
    else if (lean)
        BN_LAUNCH_PDL(dt, bn_pk2_lean1_nhwc, blocks, st, P, lrev, a->x, a->dy, out, a->scale,
                      a->bias, smean, sinv, a->workspace);
    else if (P.v2 && mode == 0)
        BN_LAUNCH_PDL(dt, bn_pk2_apply0_nhwc, blocks, st, P, rev, a->x, a->dy, out, a->scale,
                      a->bias, smean, sinv, a->workspace, a->alpha, a->beta);
    else if (P.v2)
        BN_LAUNCH_PDL(dt, bn_pk2_apply1_nhwc, blocks, st, P, rev, a->x, a->dy, out, a->scale,
                      a->bias, smean, sinv, a->workspace, a->alpha, a->beta);
    else if (P.nhwc)
        BN_LAUNCH_PDL(dt, bn_pk_apply_nhwc, blocks, st, P, mode, a->x, a->dy, out, a->scale,
                      a->bias, smean, sinv, a->workspace, a->alpha, a->beta);
    else
        BN_LAUNCH_PDL(dt, bn_pk_apply_nchw, blocks, st, P, mode, a->x, a->dy, out, a->scale,
                      a->bias, smean, sinv, a->workspace, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the cluster kernels ---------------------------------------------------------------------
 * Training forward (the legacy entry, which passes no workspace, and the *Ex / v8 ones) and
 * backward (every entry; ops BN or BN_ACTIVATION) of SPATIAL FLOAT / HALF / BFLOAT16 packed
 * NCHW data on compute capability 9.0+: bn_cl_train / bn_cl_bwd (batchnorm_kernels.cuh, end)
 * read x (backward: x and dy) once into the shared memory of a cluster of K CTAs per channel.
 * K is the smallest of 2, 4, 8, 16 whose shares fit 52 KiB (bn_cl_cap), else BN_CL_CTA_BYTES
 * (104 KiB): a rule of the shape (and of FREEDNN_GPU_BN_CL_KIB), so
 * the bits do not depend on scheduling (they do on the device kind: other GPUs keep the
 * per-tile or packed kernels). FREEDNN_GPU_BN_CLUSTER=0 turns the forward off,
 * FREEDNN_GPU_BN_CLUSTER_BWD=0 the backward (each read once). */

typedef void (*bn_cl_kernel_t)(const bn_cl_t, const void *, void *, const void *, const void *,
                               void *, void *, void *, void *, double, double, double);
typedef void (*bn_clb_kernel_t)(const bn_cl_t, const void *, const void *, void *, const void *,
                                const void *, const void *, const void *, void *, void *, double,
                                double, double, double);

static const bn_cl_kernel_t bn_cl_fwd_k[3] = {bn_cl_train_f32, bn_cl_train_f16, bn_cl_train_bf16};
static const bn_clb_kernel_t bn_cl_bwd_k[3] = {bn_cl_bwd_f32, bn_cl_bwd_f16, bn_cl_bwd_bf16};

/* The cluster kernels' type index: 0 FLOAT, 1 HALF, 2 BFLOAT16; -1 for the other types. */
static int bn_cl_type(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT      ? 0
           : dt == CUDNN_DATA_HALF     ? 1
           : dt == CUDNN_DATA_BFLOAT16 ? 2
                                       : -1;
}

/* A launch of `grid` CTAs of BN_CL_THREADS in clusters of k, smem bytes of dynamic shared
 * memory each; *at holds the cluster attribute the configuration points at. */
static cudaLaunchConfig_t bn_cl_config(cudaLaunchAttribute *at, unsigned k, unsigned grid,
                                       size_t smem, cudaStream_t st)
{
    cudaLaunchConfig_t cfg = {};
    *at = cudaLaunchAttribute{};
    at->id = cudaLaunchAttributeClusterDimension;
    at->val.clusterDim.x = k, at->val.clusterDim.y = 1, at->val.clusterDim.z = 1;
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(BN_CL_THREADS);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    return cfg;
}

#define BN_CL_MAX_DEV 64

/* The cluster sizes (bit j: 2 << j CTAs) of kernel f (cache slot ti: the type index, + 3 for
 * the backward) that can be resident on the current device with BN_CL_CTA_BYTES of shared
 * memory each: 0 below compute capability 9.0. Asked once per (device, slot); that first call
 * also raises f's dynamic shared-memory limit and allows 16-CTA clusters (cudaFuncSetAttribute,
 * per device), so racing first calls store the same answer after the same settings. */
static int bn_cl_device_ks(const void *f, int ti)
{
    static int cache[BN_CL_MAX_DEV][6]; /* 0 unknown, else 1 + the mask */
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= BN_CL_MAX_DEV) {
        (void)cudaGetLastError();
        return 0;
    }
    int v = __atomic_load_n(&cache[dev][ti], __ATOMIC_ACQUIRE);
    if (v != 0)
        return v - 1;
    int major = 0, mask = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
        major >= 9 &&
        cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, BN_CL_CTA_BYTES) ==
            cudaSuccess &&
        cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess) {
        for (int j = 0; j < BN_CL_KS; j++) {
            cudaLaunchAttribute at;
            const cudaLaunchConfig_t cfg =
                bn_cl_config(&at, 2u << j, 2u << j, BN_CL_CTA_BYTES, (cudaStream_t)0);
            int clusters = 0;
            if (cudaOccupancyMaxActiveClusters(&clusters, f, &cfg) == cudaSuccess && clusters > 0)
                mask |= 1 << j;
        }
    }
    (void)cudaGetLastError(); /* a refused query is an answer (0), not the next launch's error */
    __atomic_store_n(&cache[dev][ti], 1 + mask, __ATOMIC_RELEASE);
    return mask;
}

/* FREEDNN_GPU_BN_CLUSTER (forward, bwd 0) or FREEDNN_GPU_BN_CLUSTER_BWD (bwd 1), read once. */
static int bn_cl_env(int bwd)
{
    static const int fwd_on = fd_env_on("FREEDNN_GPU_BN_CLUSTER");
    static const int bwd_on = fd_env_on("FREEDNN_GPU_BN_CLUSTER_BWD");
    return bwd ? bwd_on : fwd_on;
}

/* The first cap on a CTA's share, in bytes: FREEDNN_GPU_BN_CL_KIB KiB (16..104; default 52: 4
 * CTAs an SM, whose load, statistics and store phases overlap; 104: 2), read once. Channels that
 * 16 shares of it do not hold take BN_CL_CTA_BYTES. The split (K) follows from the caps and the
 * shape, so a given setting keeps the bits fixed. */
static int64_t bn_cl_cap_env(void)
{
    const long kib =
        fd_env_long("FREEDNN_GPU_BN_CL_KIB", 16, BN_CL_CTA_BYTES / 1024, BN_CL_CAP_BYTES / 1024);
    return (int64_t)kib * 1024;
}
static int64_t bn_cl_cap(void)
{
    static const int64_t cap = bn_cl_cap_env();
    return cap;
}

/* FREEDNN_GPU_BN_CL_K8=0: K stays the smallest size whose shares fit the caps (the rule before
 * 2026-12-03); read once. By default a channel whose shares would be 2 or 4 of the first cap
 * splits into 8 while each share keeps BN_CL_MIN_SHARE bytes: more, shorter CTAs an SM
 * overlap their load, statistics and store phases better. H200, 2026-12-03 (dnnbench --graph,
 * the same call as FREEDNN_GPU_BN_CL_KIB=26): f16 NCHW n32c256h56w56 training, K 4 -> 8 (50 ->
 * 25 KiB shares), 1722 -> 1880 GB/s; the other rows of that size already take 8 or 16
 * (f32 training 8; backward f16 8, f32 16), and 16 shares of 25 KiB lost there (f32 training
 * 2130 -> 1874, f16 backward 2211 -> 1934). */
static int bn_cl_k8_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_BN_CL_K8");
    return on;
}

/* FREEDNN_GPU_BN_CL_1PASS=0: bn_cl_train's statistics in bn_stats' two passes (two cluster
 * syncs a channel), the rule before 2026-12-03; read once. By default one shifted pass
 * (bn_cl_stats1). */
static int bn_cl_1pass_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_BN_CL_1PASS");
    return on;
}

/* Fills *Q and returns 1 when cluster kernel f (cache slot ti) serves p: SPATIAL, ops BN or
 * BN_ACTIVATION, the nt tensors t[] packed NCHW with H * W a multiple of the vector, below
 * 2^31 elements, `copies` tensors' shares (x; x and dy) of a channel within 16 CTAs of
 * bn_cl_cap() bytes, else of BN_CL_CTA_BYTES, a device that holds such a cluster. */
static int bn_cl_plan(const fd_bn_problem_t *p, const struct cudnnTensorStruct *const *t, int nt,
                      int copies, const void *f, int ti, bn_cl_t *Q)
{
    if (p->per_activation ||
        (p->ops != CUDNN_BATCHNORM_OPS_BN && p->ops != CUDNN_BATCHNORM_OPS_BN_ACTIVATION))
        return 0;
    const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->x.dtype);
    int64_t c = p->x.dim[1], sp = 1;
    for (int i = 2; i < p->x.nb_dims; i++)
        sp *= p->x.dim[i];
    const int64_t m = p->x.dim[0] * sp;
    if (sp % vec != 0 || m * c >= ((int64_t)1 << 31))
        return 0;
    for (int i = 0; i < nt; i++)
        if (!bn_pk_packed(t[i], &p->x, 0))
            return 0;
    const int64_t nv = m / vec, share = copies * FD_CUDA_VEC_BYTES; /* bytes per vector */
    int j = 0;
    while (j < BN_CL_KS && (nv + (2 << j) - 1) / (2 << j) * share > bn_cl_cap())
        j++;
    if (j == BN_CL_KS) /* a channel too large for 16 shares of the first cap */
        for (j = 0; j < BN_CL_KS && (nv + (2 << j) - 1) / (2 << j) * share > BN_CL_CTA_BYTES;)
            j++;
    /* at least 8 CTAs while their shares keep BN_CL_MIN_SHARE (bn_cl_k8_on) */
    while (j < 2 && bn_cl_k8_on() && (nv + (4 << j) - 1) / (4 << j) * share >= BN_CL_MIN_SHARE)
        j++;
    if (j == BN_CL_KS || !(bn_cl_device_ks(f, ti) >> j & 1))
        return 0;
    memset(Q, 0, sizeof *Q);
    Q->P.c = c, Q->P.s = sp, Q->P.m = m;
    bn_pk_params(p, &Q->P);
    Q->k = 2 << j;
    Q->nv = (uint32_t)nv;
    Q->vpc = (uint32_t)((nv + Q->k - 1) / Q->k);
    Q->two_pass = !bn_cl_1pass_on();
    return 1;
}

/* Fills *Q, *f and returns 1 when bn_cl_train serves the training call: bn_cl_plan's shapes
 * of x and y, FLOAT / HALF / BFLOAT16, 16-byte aligned, y != x. */
static int bn_cl_usable(const fd_bn_problem_t *p, const fd_bn_args_t *a, bn_cl_t *Q,
                        bn_cl_kernel_t *f)
{
    const int ti = bn_cl_type(p->x.dtype);
    if (!bn_cl_env(0) || p->dir != FD_BN_TRAIN || ti < 0 || a->x == a->y ||
        !fd_cuda_aligned16(a->x) || !fd_cuda_aligned16(a->y) || a->scale == NULL || a->bias == NULL)
        return 0;
    *f = bn_cl_fwd_k[ti];
    const struct cudnnTensorStruct *t[2] = {&p->x, &p->y};
    return bn_cl_plan(p, t, 2, 1, (const void *)*f, ti, Q);
}

/* Fills *Q, *f and returns 1 when bn_cl_bwd serves the backward call: bn_cl_plan's shapes of
 * x, dy and dx, FLOAT / HALF / BFLOAT16, 16-byte aligned, dx != x, dx != dy. */
static int bn_clb_usable(const fd_bn_problem_t *p, const fd_bn_args_t *a, bn_cl_t *Q,
                         bn_clb_kernel_t *f)
{
    const int ti = bn_cl_type(p->x.dtype);
    if (!bn_cl_env(1) || p->dir != FD_BN_BWD || ti < 0 || a->dx == a->x || a->dx == a->dy ||
        !fd_cuda_aligned16(a->x) || !fd_cuda_aligned16(a->dy) || !fd_cuda_aligned16(a->dx) ||
        a->scale == NULL)
        return 0;
    *f = bn_cl_bwd_k[ti];
    const struct cudnnTensorStruct *t[3] = {&p->x, &p->dy, &p->dx};
    return bn_cl_plan(p, t, 3, 2, (const void *)*f, 3 + ti, Q);
}

/* The launch of C clusters of k CTAs, copies * vpc vectors of dynamic shared memory each. */
static cudaLaunchConfig_t bn_cl_grid(cudaLaunchAttribute *at, const bn_cl_t &Q, int copies,
                                     const fd_bn_args_t *a)
{
    return bn_cl_config(at, (unsigned)Q.k, (unsigned)(Q.P.c * Q.k),
                        (size_t)copies * Q.vpc * FD_CUDA_VEC_BYTES, a->handle->stream);
}

/* The launch's error (cudaLaunchKernelEx's, else a sticky earlier one) as a status. */
static cudnnStatus_t bn_cl_launched(cudaError_t err, const char *name, const fd_bn_problem_t *p,
                                    const bn_cl_t &Q, const cudaLaunchConfig_t &cfg)
{
    FD_CUDA_LAUNCHED_AS(err,
                        "%s on %s data (%lld clusters of %d x %d threads, %zu bytes of "
                        "shared memory each, stream %p)",
                        name, fd_dtype_name(p->x.dtype), (long long)Q.P.c, Q.k, BN_CL_THREADS,
                        cfg.dynamicSmemBytes, (void *)cfg.stream);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t bn_cl_run(const fd_bn_problem_t *p, const bn_cl_t &Q, bn_cl_kernel_t f,
                               const fd_bn_args_t *a)
{
    cudaLaunchAttribute at;
    const cudaLaunchConfig_t cfg = bn_cl_grid(&at, Q, 1, a);
    return bn_cl_launched(cudaLaunchKernelEx(&cfg, f, Q, a->x, a->y, a->scale, a->bias, a->run_mean,
                                             a->run_var, a->save_mean, a->save_inv, a->factor,
                                             a->alpha, a->beta),
                          "bn_cl_train", p, Q, cfg);
}

static cudnnStatus_t bn_clb_run(const fd_bn_problem_t *p, const bn_cl_t &Q, bn_clb_kernel_t f,
                                const fd_bn_args_t *a)
{
    cudaLaunchAttribute at;
    const cudaLaunchConfig_t cfg = bn_cl_grid(&at, Q, 2, a);
    return bn_cl_launched(cudaLaunchKernelEx(&cfg, f, Q, a->x, a->dy, a->dx, a->scale, a->bias,
                                             a->mean, a->var, a->dscale, a->dbias, a->alpha,
                                             a->beta, a->alpha_param, a->beta_param),
                          "bn_cl_bwd", p, Q, cfg);
}

/* ---- the grid-resident training forward -------------------------------------------------------
 * Training forward of the packed NHWC path's calls that its lean apply serves (bn_pk2_* plan,
 * ops BN, alpha 1, beta 0; FLOAT / HALF / BFLOAT16) in one cooperative launch of
 * bn_gr_train_nhwc (FLOAT by default; FREEDNN_GPU_BN_GR=0: off, =1: HALF and BFLOAT16 too,
 * where it measured even with the three launches): BN_GR_CTAS_SM CTAs an SM, each keeping as many
 * of the plan's chunks in shared memory as fit beside the tree (n32 56x56, 96-KiB chunks of 192
 * rows x 32 vectors: one, 264 of n32c128h56w56's 523 on 132 SMs), so those are read from DRAM once;
 * the same partials, combine and per-element arithmetic as the three launches, so the same bits
 * on any GPU. Knobs for timing and the tests: FREEDNN_GPU_BN_GR_CTAS=G (at most G CTAs),
 * FREEDNN_GPU_BN_GR_HOLD=H (at most H chunks a CTA; 0: none). Needs the handle's barrier counter
 * and a device with cooperative launches; otherwise, or when the launch is refused, the three
 * launches run. */

typedef void (*bn_gr_kernel_t)(const bn_gr_t, const void *, void *, const void *, const void *,
                               void *, void *, void *, void *, void *, double);
static const bn_gr_kernel_t bn_gr_k[3] = {bn_gr_train_nhwc_f32, bn_gr_train_nhwc_f16,
                                          bn_gr_train_nhwc_bf16};

static int64_t bn_gr_ctas_env(void)
{
    static const int64_t v = fd_env_long("FREEDNN_GPU_BN_GR_CTAS", 1, 1L << 20, 1L << 20);
    return v;
}
static int bn_gr_hold_env(void)
{
    static const int v = (int)fd_env_long("FREEDNN_GPU_BN_GR_HOLD", 0, 64, 64);
    return v;
}
/* FREEDNN_GPU_BN_GR: 0 off; unset FLOAT only (HALF measured even with the three launches), unless
 * FREEDNN_GPU_BN_GR_CTAS or _HOLD is set; anything else every type. Read once. */
static int bn_gr_types_read(void)
{
    const char *v = getenv("FREEDNN_GPU_BN_GR");
    if (v != NULL && strcmp(v, "0") == 0)
        return 0;
    if (v != NULL || getenv("FREEDNN_GPU_BN_GR_CTAS") != NULL ||
        getenv("FREEDNN_GPU_BN_GR_HOLD") != NULL)
        return 7;
    return 1;
}
static int bn_gr_env(int ti)
{
    static const int types = bn_gr_types_read(); /* bit ti: bn_cl_type's index */
    return types >> ti & 1;
}

/* Per (device, type): the SMs and the dynamic shared memory a CTA may take at BN_GR_CTAS_SM an
 * SM (0: the kernel cannot run there: no cooperative launches, too many registers, a refused
 * query), found once; the first call also raises the kernel's dynamic shared-memory limit to
 * it. */
static int bn_gr_device(int ti, int *sms, int64_t *cta_bytes)
{
    static int64_t cache[BN_CL_MAX_DEV][3][2]; /* 0 unknown, else 1 + SMs; bytes */
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= BN_CL_MAX_DEV) {
        (void)cudaGetLastError();
        return 0;
    }
    int64_t *e = cache[dev][ti];
    if (__atomic_load_n(&e[0], __ATOMIC_ACQUIRE) == 0) {
        int n = 0, coop = 0, per_sm = 0, reserved = 0, blocks = 0;
        int64_t bytes = 0;
        cudaFuncAttributes fa;
        const void *f = (const void *)bn_gr_k[ti];
        if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) ==
                cudaSuccess &&
            cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev) ==
                cudaSuccess &&
            cudaFuncGetAttributes(&fa, f) == cudaSuccess && coop) {
            bytes = ((int64_t)per_sm / BN_GR_CTAS_SM - reserved - (int64_t)fa.sharedSizeBytes) /
                    16 * 16;
            if (bytes < BN_GR_TREE_BYTES ||
                cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes) !=
                    cudaSuccess ||
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, FD_CUDA_BLOCK,
                                                              (size_t)bytes) != cudaSuccess ||
                blocks < BN_GR_CTAS_SM)
                bytes = 0;
        }
        (void)cudaGetLastError(); /* a refused query is an answer, not the next launch's error */
        e[1] = bytes;
        __atomic_store_n(&e[0], 1 + (int64_t)n, __ATOMIC_RELEASE);
    }
    *sms = (int)(__atomic_load_n(&e[0], __ATOMIC_ACQUIRE) - 1);
    *cta_bytes = e[1];
    return *sms > 0 && *cta_bytes > 0;
}

/* Launches bn_gr_train_nhwc for the training call a (with b's workspace) when it serves it:
 * *ran 1. *ran 0: not launched, nothing queued (the three launches serve the call). */
static cudnnStatus_t bn_gr_run(const fd_bn_problem_t *p, const bn_pk_t &P, const fd_bn_args_t *a,
                               int *ran)
{
    *ran = 0;
    const int ti = bn_cl_type(p->x.dtype);
    int sms = 0;
    int64_t cta_bytes = 0;
    if (ti < 0 || !bn_gr_env(ti) || !P.v2 || P.ops != CUDNN_BATCHNORM_OPS_BN || a->alpha != 1.0 ||
        a->beta != 0.0 || !bn_pk2_lean_env() || !bn_gr_device(ti, &sms, &cta_bytes))
        return CUDNN_STATUS_SUCCESS;
    const int64_t jobs = (int64_t)P.ncg * P.nch;
    int64_t g = (int64_t)sms * BN_GR_CTAS_SM;
    g = g < bn_gr_ctas_env() ? g : bn_gr_ctas_env();
    g = g < jobs ? g : jobs;
    const int64_t slot_bytes = P.cm * P.cpb * FD_CUDA_VEC_BYTES;
    int64_t hold = (cta_bytes - BN_GR_TREE_BYTES) / slot_bytes, need = (jobs + g - 1) / g;
    hold = hold < need ? hold : need;
    hold = hold < bn_gr_hold_env() ? hold : bn_gr_hold_env();
    if (hold < 1 && bn_gr_hold_env() != 0)
        return CUDNN_STATUS_SUCCESS; /* no chunk fits: nothing saved over the three launches */
    bn_gr_t Q;
    Q.P = P;
    Q.hold = (int)hold;
    Q.slotv = (uint32_t)(P.cm * P.cpb);
    Q.ctr = fd_cuda_grid_counter(a->handle);
    if (Q.ctr == NULL)
        return CUDNN_STATUS_SUCCESS;
    cudaLaunchAttribute at = {};
    at.id = cudaLaunchAttributeCooperative;
    at.val.cooperative = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)g);
    cfg.blockDim = dim3(FD_CUDA_BLOCK);
    cfg.dynamicSmemBytes = (size_t)(BN_GR_TREE_BYTES + hold * slot_bytes);
    cfg.stream = a->handle->stream;
    cfg.attrs = &at;
    cfg.numAttrs = 1;
    const cudaError_t err =
        cudaLaunchKernelEx(&cfg, bn_gr_k[ti], Q, a->x, a->y, a->scale, a->bias, a->workspace,
                           a->run_mean, a->run_var, a->save_mean, a->save_inv, a->factor);
    if (err == cudaErrorCooperativeLaunchTooLarge) { /* refused, nothing queued */
        (void)cudaGetLastError();
        fd_log_info("bn_gr_train_nhwc: a cooperative launch of %lld CTAs was refused; the "
                    "three launches serve the call",
                    (long long)g);
        return CUDNN_STATUS_SUCCESS;
    }
    *ran = 1;
    FD_CUDA_LAUNCHED_AS(err,
                        "bn_gr_train_nhwc on %s data (%lld cooperative CTAs of %d threads, %zu "
                        "bytes of shared memory each, stream %p)",
                        fd_dtype_name(p->x.dtype), (long long)g, FD_CUDA_BLOCK,
                        cfg.dynamicSmemBytes, (void *)cfg.stream);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the packed inference pass ----------------------------------------------------------- */

/* FREEDNN_GPU_BN_IV2 (default on; 0: the first bn_iv_* mapping), read once. */
static int bn_iv2_env(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_BN_IV2");
    return on;
}

/* The bn_iv2_* grid cap in blocks: FREEDNN_GPU_BN_IV2_BLOCKS when set to a positive count (a
 * knob for timing and for the tests: a small cap makes threads walk several pieces / trips),
 * else BN_IV2_WAVES full-occupancy waves (2112 blocks on the H200: f16 NCHW 3015 -> 3273 GB/s,
 * f16 NHWC 2792 -> 2866, f32 NHWC 3573 -> 3609, f32 NCHW 3715 -> 3667 against 4 waves,
 * docs/perf/gpu-membw-2026-12-02.md); read once. */
static int64_t bn_iv2_cap_read(void)
{
    return fd_env_long("FREEDNN_GPU_BN_IV2_BLOCKS", 1, (1L << 30) - 1,
                       (long)fd_cuda_sm_count() * (2048 / FD_CUDA_BLOCK) * BN_IV2_WAVES);
}
static int64_t bn_iv2_cap(void)
{
    static const int64_t cap = bn_iv2_cap_read();
    return cap;
}

/* Fills *V and returns 1 when bn_iv_* serve the inference call: SPATIAL, FLOAT / HALF /
 * BFLOAT16, x, y (z with BN_ADD_ACTIVATION) packed in one layout whose vectors stay in one
 * channel (NCHW) or one row (NHWC), 16-byte aligned, below 2^31 elements. */
static int bn_iv_usable(const fd_bn_problem_t *p, const fd_bn_args_t *a, bn_iv_t *V)
{
    const cudnnDataType_t dt = p->x.dtype;
    if (p->per_activation ||
        (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16))
        return 0;
    const int has_z = p->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    if (!fd_cuda_aligned16(a->x) || !fd_cuda_aligned16(a->y) ||
        (has_z && !fd_cuda_aligned16(a->z)) || a->bias == NULL)
        return 0;
    const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt);
    int64_t c = p->x.dim[1], sp = 1;
    for (int i = 2; i < p->x.nb_dims; i++)
        sp *= p->x.dim[i];
    const int64_t rows = p->x.dim[0] * sp;
    if (rows * c >= ((int64_t)1 << 31))
        return 0;
    int lay = -1;
    for (int nhwc = 0; nhwc < 2 && lay < 0; nhwc++) {
        if (nhwc ? c % vec != 0 : sp % vec != 0)
            continue;
        if (bn_pk_packed(&p->x, &p->x, nhwc) && bn_pk_packed(&p->y, &p->x, nhwc) &&
            (!has_z || bn_pk_packed(&p->z, &p->x, nhwc)))
            lay = nhwc;
    }
    if (lay < 0)
        return 0;
    memset(V, 0, sizeof *V);
    V->nhwc = lay;
    V->c = c, V->s = sp, V->rows = rows;
    V->v2 = bn_iv2_env();
    const int64_t full = V->v2 ? bn_iv2_cap() : 0;
    if (V->v2 && lay) {
        /* column groups of at most BN_IV2_COLS columns, spread evenly; 4 rpp rows a block trip */
        bn_col_groups(c / vec, BN_IV2_COLS, &V->cols, &V->ncg, &V->cpb, &V->rpp);
        const int64_t cap = full / V->ncg;
        const int64_t want = (rows + BN_IV2_K * V->rpp - 1) / (BN_IV2_K * V->rpp);
        V->nrb = (int)(want < 1 ? 1 : want > cap ? (cap < 1 ? 1 : cap) : want);
        V->grid = (int64_t)V->ncg * V->nrb;
    } else if (V->v2) {
        V->planes = p->x.dim[0] * c;
        V->vps = sp / vec;
        int tpp = 1;
        while (tpp < FD_CUDA_BLOCK && BN_IV2_K * tpp < V->vps)
            tpp *= 2;
        V->tpp = tpp;
        /* planes of more than a trip split into segments of whole trips while the pieces are
         * fewer than two full-occupancy waves of blocks */
        const int64_t trip = (int64_t)BN_IV2_K * tpp, trips = (V->vps + trip - 1) / trip;
        int64_t nseg = 1;
        if (trips > 1 && V->planes < full / 2) {
            const int64_t want = (full / 2 + V->planes - 1) / V->planes;
            nseg = want < trips ? want : trips;
        }
        V->segl = (V->vps + nseg - 1) / nseg;
        V->segl = (V->segl + trip - 1) / trip * trip;
        V->nseg = (V->vps + V->segl - 1) / V->segl;
        V->pieces = V->planes * V->nseg;
        const int64_t ppb = FD_CUDA_BLOCK / tpp, want = (V->pieces + ppb - 1) / ppb;
        V->grid = want < full ? want : full;
    } else if (lay) {
        V->cols = (int)(c / vec);
        V->cpb = V->cols < FD_CUDA_BLOCK ? V->cols : FD_CUDA_BLOCK;
        V->rpp = FD_CUDA_BLOCK / V->cpb;
        V->ncg = (V->cols + V->cpb - 1) / V->cpb;
        /* about FD_CUDA_WAVES waves in all, each thread two vectors per trip */
        const int64_t cap = (int64_t)fd_cuda_wave_blocks(INT64_MAX / 2) / V->ncg;
        const int64_t want = (rows + 2 * V->rpp - 1) / (2 * V->rpp);
        V->nrb = (int)(want < 1 ? 1 : want > cap ? (cap < 1 ? 1 : cap) : want);
    } else {
        V->planes = p->x.dim[0] * c;
        V->vps = sp / vec;
        int tpp = 32;
        while (tpp < FD_CUDA_BLOCK && 2 * tpp <= V->vps)
            tpp *= 2;
        V->tpp = tpp;
    }
    V->ops = p->ops;
    V->act = bn_act_of(p);
    V->eps = p->epsilon;
    V->sbs = p->sb.stride[1];
    V->mvs = p->mv.stride[1];
    return 1;
}

/* FREEDNN_GPU_BN_IV3, the layouts bn_iv3_* take: 1 NCHW only, 2 NHWC only, 3 both, 0 none
 * (bn_iv2_* / bn_iv_* for every call they take, as before); unset (BN_IV3_AUTO): NCHW, and
 * NHWC of HALF / BFLOAT16; read once. On the H200 (2026-12-02, gpu-membw-2026-12-02.md,
 * eighteenth session) bn_iv3_nchw ran f16 3308 -> 3660 GB/s and f32 even (3712 / 3700) (call 1);
 * the first bn_iv3_nhwc (one trip a block, so every 8 rows recomputed all C channels' double
 * 1 / sqrt) f16 even (2905 / 2912) and f32 3623 -> 2439 (call 1); with r3 trips a block
 * (bn_iv3_trips) f16 2894 -> 3465 and f32 3643 -> 3536 (call 3): FLOAT NHWC stays on bn_iv2_*
 * unless the switch names NHWC. */
#define BN_IV3_AUTO 4
static int bn_iv3_env(void)
{
    static const int mask = (int)fd_env_long("FREEDNN_GPU_BN_IV3", 0, 3, BN_IV3_AUTO);
    return mask;
}

/* Whether bn_iv3_* take a call of this layout and type (the switch above). */
static int bn_iv3_on(int nhwc, cudnnDataType_t dt)
{
    const int m = bn_iv3_env();
    if (m == BN_IV3_AUTO)
        return !nhwc || dt != CUDNN_DATA_FLOAT;
    return (m & (nhwc ? 2 : 1)) != 0;
}

/* FREEDNN_GPU_BN_IV3_NHWC_R=R (1..64): bn_iv3_nhwc takes exactly R trips a block (a timing and
 * test knob); unset (or out of range) bn_iv3_trips chooses; read once. */
static int bn_iv3_r_env(void)
{
    static const int r = (int)fd_env_long("FREEDNN_GPU_BN_IV3_NHWC_R", 1, 64, 0);
    return r;
}

/* bn_iv3_nhwc's trips a block for nv vectors: t = ceil(nv / FD_CUDA_BLOCK) block trips over
 * wb = SMs * 8 block slots (full occupancy: bn_iv3_nhwc's launch bounds) take ceil(t / wb)
 * trips a slot at one trip a block; r trips a block take ceil(ceil(t / r) / wb) * r. The
 * largest r <= BN_IV3_R_MAX that keeps that count (no longer tail than the one-trip grid) and
 * at least BN_IV3_WAVES waves of blocks (the scheduler still balances the SMs), else 1. The
 * parameter table (C double 1 / sqrt, 4 C loads) is built once per block: r times fewer.
 * H200 (132 SMs, wb 1056), n32 56x56 f16 C 256 / f32 C 128 (t = 12544, 12 trips a slot):
 * r = 6, 2091 blocks (1.98 waves); 108 SMs: r = 5, 2509 blocks. */
static uint32_t bn_iv3_trips(int64_t nv)
{
    if (bn_iv3_r_env() > 0)
        return (uint32_t)bn_iv3_r_env();
    const int64_t t = (nv + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK;
    const int64_t wb = (int64_t)fd_cuda_sm_count() * (2048 / FD_CUDA_BLOCK);
    const int64_t span1 = (t + wb - 1) / wb;
    uint32_t r = 1;
    for (int64_t k = 2; k <= BN_IV3_R_MAX; k++) {
        const int64_t rounds = ((t + k - 1) / k + wb - 1) / wb;
        if (rounds >= BN_IV3_WAVES && rounds * k <= span1)
            r = (uint32_t)k;
    }
    return r;
}

/* For a call bn_iv_usable accepted (V filled): 1, V's bn_iv3 fields and the grid in *blocks
 * when bn_iv3_* serve it (the switch on for its layout, ops BN, alpha 1, beta 0; NHWC C at
 * most BN_IV3_NHWC_C). */
static int bn_iv3_usable(const fd_bn_problem_t *p, const fd_bn_args_t *a, bn_iv_t *V,
                         unsigned *blocks)
{
    if (!bn_iv3_on(V->nhwc, p->x.dtype) || V->ops != CUDNN_BATCHNORM_OPS_BN || a->alpha != 1.0 ||
        a->beta != 0.0)
        return 0;
    const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->x.dtype);
    const int64_t nv = V->rows * V->c / vec; /* below 2^31: bn_iv_usable */
    if (nv < 1 || (V->nhwc && V->c > BN_IV3_NHWC_C(vec)))
        return 0;
    V->nv3 = (uint32_t)nv;
    V->div3 = (uint32_t)((V->nhwc ? V->c : V->s) / vec);
    V->r3 = V->nhwc ? bn_iv3_trips(nv) : 1;
    V->step3 = FD_CUDA_BLOCK % V->div3;
    const int64_t span = (int64_t)V->r3 * FD_CUDA_BLOCK;
    *blocks = (unsigned)((nv + span - 1) / span);
    return 1;
}

/* bn_iv3_nchw / bn_iv3_nhwc of dt (FLOAT, HALF or BFLOAT16) on `blocks` blocks. */
#define BN_IV3_LAUNCH(dt, kernel, blocks, stream, ...)                                         \
    do {                                                                                       \
        if ((dt) == CUDNN_DATA_FLOAT)                                                          \
            kernel##_f32<<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);               \
        else if ((dt) == CUDNN_DATA_HALF)                                                      \
            kernel##_f16<<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);               \
        else                                                                                   \
            kernel##_bf16<<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);              \
        FD_CUDA_LAUNCHED("%s on %s data (%u blocks, stream %p)", #kernel, fd_dtype_name(dt),   \
                         (unsigned)(blocks), (void *)(stream));                                \
    } while (0)

/* ---- rows (src/impls.def) ------------------------------------------------------------------ */

extern "C" int fd_bn_fwd_infer_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return bn_applicable(problem, why, why_size);
}
extern "C" size_t fd_bn_fwd_infer_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_bn_fwd_infer_cuda_run(const void *problem, const void *args)
{
    const fd_bn_problem_t *p = (const fd_bn_problem_t *)problem;
    const fd_bn_args_t *a = (const fd_bn_args_t *)args;
    bn_geom_t G;
    bn_geom(&G, p);
    /* operands: y (orders the walk), x, z, scale / bias, mean / variance */
    const int nb = p->x.nb_dims;
    int64_t dims[FD_DIM_MAX], sy[FD_DIM_MAX], sx[FD_DIM_MAX], sz[FD_DIM_MAX], ssb[FD_DIM_MAX],
        smv[FD_DIM_MAX];
    for (int i = 0; i < nb; i++) {
        dims[i] = p->x.dim[i];
        sy[i] = p->y.stride[i];
        sx[i] = p->x.stride[i];
        sz[i] = p->z.nb_dims > 0 ? p->z.stride[i] : 0;
        const int used = i == 1 || (i >= 2 && p->per_activation);
        ssb[i] = used ? p->sb.stride[i] : 0;
        smv[i] = used ? p->mv.stride[i] : 0;
    }
    bn_iv_t V;
    if (bn_iv_usable(p, a, &V)) {
        cudaStream_t st = a->handle->stream;
        const cudnnDataType_t dt = p->x.dtype;
        unsigned lb = 0;
        if (bn_iv3_usable(p, a, &V, &lb)) {
            if (V.nhwc)
                BN_IV3_LAUNCH(dt, bn_iv3_nhwc, lb, st, V, a->x, a->y, a->scale, a->bias, a->mean,
                              a->var);
            else
                BN_IV3_LAUNCH(dt, bn_iv3_nchw, lb, st, V, a->x, a->y, a->scale, a->bias, a->mean,
                              a->var);
            return CUDNN_STATUS_SUCCESS;
        }
        const unsigned blocks = V.v2     ? (unsigned)V.grid
                                : V.nhwc ? (unsigned)(V.ncg * V.nrb)
                                         : fd_cuda_wave_blocks(V.planes * V.tpp);
        const int bn0 = V.ops == CUDNN_BATCHNORM_OPS_BN && a->beta == 0.0;
        if (V.v2 && V.nhwc && bn0)
            BN_LAUNCH(dt, bn_iv2_nhwc_bn0, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias,
                      a->mean, a->var, a->alpha, a->beta);
        else if (V.v2 && V.nhwc && V.ops == CUDNN_BATCHNORM_OPS_BN)
            BN_LAUNCH(dt, bn_iv2_nhwc_bn, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias,
                      a->mean, a->var, a->alpha, a->beta);
        else if (V.v2 && V.nhwc)
            BN_LAUNCH(dt, bn_iv2_nhwc, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias, a->mean,
                      a->var, a->alpha, a->beta);
        else if (V.v2 && bn0)
            BN_LAUNCH(dt, bn_iv2_nchw_bn0, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias,
                      a->mean, a->var, a->alpha, a->beta);
        else if (V.v2 && V.ops == CUDNN_BATCHNORM_OPS_BN)
            BN_LAUNCH(dt, bn_iv2_nchw_bn, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias,
                      a->mean, a->var, a->alpha, a->beta);
        else if (V.v2)
            BN_LAUNCH(dt, bn_iv2_nchw, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias, a->mean,
                      a->var, a->alpha, a->beta);
        else if (V.nhwc && V.ops == CUDNN_BATCHNORM_OPS_BN)
            BN_LAUNCH(dt, bn_iv_nhwc_bn, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias,
                      a->mean, a->var, a->alpha, a->beta);
        else if (V.nhwc)
            BN_LAUNCH(dt, bn_iv_nhwc, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias,
                      a->mean, a->var, a->alpha, a->beta);
        else if (V.ops == CUDNN_BATCHNORM_OPS_BN)
            BN_LAUNCH(dt, bn_iv_nchw_bn, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias,
                      a->mean, a->var, a->alpha, a->beta);
        else
            BN_LAUNCH(dt, bn_iv_nchw, blocks, st, V, a->x, a->z, a->y, a->scale, a->bias,
                      a->mean, a->var, a->alpha, a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    const int64_t *strides[5] = {sy, sx, sz, ssb, smv};
    sd_nd_t w;
    sd_nd_init(&w, nb, dims, 5, strides);
    const unsigned blocks = fd_cuda_blocks(w.total, FD_CUDA_BLOCK);
    cudaStream_t st = a->handle->stream;
    BN_LAUNCH(p->x.dtype, bn_fwd_infer, blocks, st, G, w, a->x, a->z, a->y, a->scale, a->bias,
              a->mean, a->var, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_bn_fwd_train_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return bn_applicable(problem, why, why_size);
}
extern "C" size_t fd_bn_fwd_train_cuda_workspace(const void *problem)
{
    const fd_bn_problem_t *p = (const fd_bn_problem_t *)problem;
    bn_pk_t P;
    return bn_pk_plan(p, &P) ? bn_pk_workspace(p, &P) : train_workspace(p);
}
extern "C" cudnnStatus_t fd_bn_fwd_train_cuda_run(const void *problem, const void *args)
{
    const fd_bn_problem_t *p = (const fd_bn_problem_t *)problem;
    const fd_bn_args_t *a = (const fd_bn_args_t *)args;
    bn_geom_t G;
    bn_geom(&G, p);
    void *reserve = a->reserve_size > 0 ? a->reserve : NULL;
    G.reserve_aligned = ((uintptr_t)reserve % sizeof(double)) == 0;
    const size_t need = train_workspace(p);
    FD_CHECK(need == 0 || (a->workspace != NULL && a->workspace_size >= need),
             CUDNN_STATUS_BAD_PARAM, "the workspace is %p with %zu bytes; this call needs %zu",
             a->workspace, a->workspace_size, need);
    bn_cl_t Q;
    bn_cl_kernel_t f;
    if (need == 0 && bn_cl_usable(p, a, &Q, &f))
        return bn_cl_run(p, Q, f, a);
    bn_pk_t P;
    fd_bn_args_t b;
    if (bn_pk_usable(p, a, &P, &b)) {
        int ran = 0;
        FD_TRY(bn_gr_run(p, P, &b, &ran));
        if (ran)
            return CUDNN_STATUS_SUCCESS;
        FD_TRY(bn_pk_pass(p, P, &b, 0, NULL, NULL, 0));
        return bn_pk_apply(p, P, &b, 0, NULL, NULL, 1);
    }
    const int64_t tiles = (G.groups + G.gx - 1) / G.gx;
    const unsigned blocks = fd_cuda_blocks(tiles, 1);
    cudaStream_t st = a->handle->stream;
    const cudnnDataType_t dt = p->x.dtype;
    if (need == 0) {
        BN_LAUNCH(dt, bn_fwd_train, blocks, st, G, a->x, a->z, a->y, a->scale, a->bias, a->run_mean,
                  a->run_var, a->save_mean, a->save_inv, a->factor, a->alpha, a->beta, NULL,
                  reserve, 0, 1, 0, 1);
        return CUDNN_STATUS_SUCCESS;
    }
    /* Reserve bits: statistics into ws, the bits from x and z (before y may overwrite x in
     * place), then y from the statistics in ws. */
    BN_LAUNCH(dt, bn_fwd_train, blocks, st, G, a->x, a->z, a->y, a->scale, a->bias, a->run_mean,
              a->run_var, a->save_mean, a->save_inv, a->factor, a->alpha, a->beta, a->workspace,
              NULL, 0, 1, 1, 0);
    if (reserve != NULL) {
        const int64_t bytes = (int64_t)a->reserve_size;
        const unsigned bblocks = fd_cuda_blocks(bytes, FD_CUDA_BLOCK);
        BN_LAUNCH(dt, bn_reserve_bits, bblocks, st, G, a->x, a->z, a->scale, a->bias, a->workspace,
                  (unsigned char *)reserve, bytes);
    }
    BN_LAUNCH(dt, bn_fwd_train, blocks, st, G, a->x, a->z, a->y, a->scale, a->bias, NULL, NULL,
              NULL, NULL, a->factor, a->alpha, a->beta, a->workspace, NULL, 1, 0, 0, 1);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_bn_bwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return bn_applicable(problem, why, why_size);
}
extern "C" size_t fd_bn_bwd_cuda_workspace(const void *problem)
{
    const fd_bn_problem_t *p = (const fd_bn_problem_t *)problem;
    bn_pk_t P;
    return bn_pk_plan(p, &P) ? bn_pk_workspace(p, &P) : 0;
}
extern "C" cudnnStatus_t fd_bn_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_bn_problem_t *p = (const fd_bn_problem_t *)problem;
    const fd_bn_args_t *a = (const fd_bn_args_t *)args;
    bn_geom_t G;
    bn_geom(&G, p);
    const void *reserve = a->reserve_size > 0 ? a->reserve : NULL;
    G.reserve_aligned = ((uintptr_t)reserve % sizeof(double)) == 0;
    bn_cl_t Q;
    bn_clb_kernel_t f;
    if (bn_clb_usable(p, a, &Q, &f))
        return bn_clb_run(p, Q, f, a);
    bn_pk_t P;
    fd_bn_args_t b;
    if (bn_pk_usable(p, a, &P, &b)) {
        const int rev = b.mean == NULL; /* each pass walks the chunks against the one before */
        if (b.mean == NULL)
            FD_TRY(bn_pk_pass(p, P, &b, 0, NULL, NULL, 0));
        FD_TRY(bn_pk_pass(p, P, &b, 1, b.mean, b.var, rev));
        return bn_pk_apply(p, P, &b, 1, b.mean, b.var, !rev);
    }
    const int64_t tiles = (G.groups + G.gx - 1) / G.gx;
    const unsigned blocks = fd_cuda_blocks(tiles, 1);
    BN_LAUNCH(p->x.dtype, bn_bwd, blocks, a->handle->stream, G, a->x, a->dy, a->dx, a->dz, a->scale,
              a->bias, a->mean, a->var, a->dscale, a->dbias, a->alpha, a->beta, a->alpha_param,
              a->beta_param, reserve);
    return CUDNN_STATUS_SUCCESS;
}
