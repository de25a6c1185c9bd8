/* SPDX-License-Identifier: MIT */
/*
 * splitk.cuh - one-launch split-K for the backward filter rows (wgmma in
 * conv_bwd_filter_implicit_gemm_f16_128xN__sm90.cu, mma.sync in conv_tc.cu, FFMA in conv_simt.cu):
 * the last block to finish a tile sums the tile's partials, so a call launches once instead of
 * GEMM + reduce (issue 7.3: a call's host time is about one launch).
 *
 * Protocol (the CUDA guide's threadfence reduction, made deterministic): every block of split z
 * writes its float partial tile to the caller's workspace as before, each storing thread runs
 * __threadfence(), the block synchronises, and one thread takes a ticket with
 * atomicInc(&ctr[tile], S - 1). atomicInc wraps to 0 after S - 1, so the block that draws S - 1
 * is the last of the tile's S blocks and the counter is already back at 0 for the next call
 * (no reset launch, no memset). That block fences again, reads the S partials through L2
 * (ld.global.cg: never a stale L1 line) and sums them in split order z = 0..S-1 starting from
 * 0.0f, exactly as the reduce kernels do, then blends alpha / beta in double and rounds once:
 * the bits equal the two-launch path's whatever the blocks' order.
 *
 * Counters: FD_SPLITK_SLOTS slots of FD_SPLITK_TILES unsigned counters, allocated and zeroed once
 * with the cuda handle (probe.cu: fd_cuda_handle_init), freed with it. A call takes the next
 * slot of the ring (an atomic on the host), so up to FD_SPLITK_SLOTS one-launch calls of one
 * handle may run at the same time (calls on streams that overlap, through cudnnSetStream); a
 * ninth still running when a later call reuses its slot would share counters: the limit, which
 * cuDNN's one-handle-per-stream usage never reaches. A problem with more tiles than a slot holds,
 * a handle without counters (its allocation failed) or a workspace that is not 16-byte aligned
 * (the sum loads float4) runs the two-launch path.
 *
 * When the two launches stay: the last block reads S x (tile bytes) alone, one SM's share of L2
 * bandwidth (about 100 GB/s with 256 threads keeping 8 float4 loads each in flight), while the
 * reduce kernel spreads the same bytes over every SM and costs about one kernel gap (2-3 us on
 * the H200) plus its traffic. FD_SPLITK_FUSED_BYTES = 256 KiB of partials per tile is ~2.6 us
 * of one SM, the break-even: beyond it the reduce kernel runs, so GPU time does not regress.
 * FREEDNN_SPLITK_FUSED (read once per process): 0 always two launches (the old path, for A/B and
 * bit-identity checks), 2 one launch whenever the counters allow it (tests), anything else or
 * unset the byte rule above.
 */
#ifndef FD_CUDA_SPLITK_CUH_
#define FD_CUDA_SPLITK_CUH_

/* FD_SPLITK_DEVICE_ONLY: the device helpers alone (dev/wgmma/wgrad.cu, outside the library) */
#ifndef FD_SPLITK_DEVICE_ONLY
#include "fd_cuda.cuh"

#define FD_SPLITK_SLOTS 8
#define FD_SPLITK_TILES 4096 /* counters per slot: tiles of one call */
#define FD_SPLITK_FUSED_BYTES ((size_t)256 << 10)

/* The counters for a call of `tiles` tiles of `tile_bytes` partial bytes and `splits` splits, or
 * NULL: run the two-launch path (the header's rules). probe.cu. */
extern "C" unsigned *fd_cuda_splitk_counters(cudnnHandle_t handle, int64_t tiles, int splits,
                                             size_t tile_bytes, const void *workspace);
/* One zeroed counter of the next slot (its last, which split-K reaches only at
 * FD_SPLITK_TILES tiles) for a grid barrier that leaves it at 0 (batchnorm.cu's bn_gr_*), or
 * NULL when the handle has none. probe.cu. */
extern "C" unsigned *fd_cuda_grid_counter(cudnnHandle_t handle);
#endif

/* One thread of the block, after the barrier that follows every storing thread's
 * __threadfence(): true for the tile's last block (the counter is back at 0). */
static __device__ __forceinline__ bool fd_splitk_ticket(unsigned *ctr, int splits)
{
    return atomicInc(ctr, (unsigned)splits - 1u) == (unsigned)splits - 1u;
}

/* The whole protocol for kernels whose block meets at __syncthreads (FFMA, mma.sync): called by
 * every thread (tid 0 takes the ticket) after its partial stores; true in every thread of the
 * tile's last block, which may then read the other blocks' partials. __syncthreads_or hands
 * thread 0's answer to the block without a shared-memory flag (those kernels' static shared
 * memory is full). The wgmma row meets at a named barrier of its consumers: its own tail. */
static __device__ __forceinline__ bool fd_splitk_last_block(unsigned *ctr, int splits, int tid)
{
    __threadfence();
    __syncthreads();
    const int last = tid == 0 && fd_splitk_ticket(ctr, splits);
    if (!__syncthreads_or(last))
        return false;
    __threadfence(); /* the other blocks' partials, published by their fences, are read next */
    return true;
}

/* The last block's sum of one tile: rows r0..r1-1 (output channels), columns c0..c1-1 of
 * part[z][r][c] (z stride zs floats, row stride ld), each element over z = 0..S-1 in order from
 * 0.0f (the reduce kernels' order: the same bits); st(r, c, v) blends and stores V consecutive
 * columns v[0..V-1]. V = 4 (float4 loads) needs c1 - c0, ld and zs multiples of 4 and part
 * 16-byte aligned; V = 1 takes any shape. Thread t of nt; the loads of 8 splits are in flight
 * at once (the adds stay in order). */
template <int V, typename Store>
static __device__ __forceinline__ void fd_splitk_sum_tile(const float *part, int splits, int64_t zs,
                                                          int64_t ld, int r0, int r1, int64_t c0,
                                                          int64_t c1, int t, int nt, Store st)
{
    const int64_t qw = (c1 - c0) / V, quads = (int64_t)(r1 - r0) * qw;
    for (int64_t q = t; q < quads; q += nt) {
        const int r = r0 + (int)(q / qw);
        const int64_t c = c0 + (q % qw) * V;
        const float *p = part + (int64_t)r * ld + c;
        float s[V];
#pragma unroll
        for (int e = 0; e < V; e++)
            s[e] = 0.0f;
#pragma unroll 8
        for (int z = 0; z < splits; z++) {
            if (V == 4) {
                const float4 v = __ldcg((const float4 *)(p + (int64_t)z * zs));
                s[0] += v.x, s[1] += v.y, s[V > 2 ? 2 : 0] += v.z, s[V > 3 ? 3 : 0] += v.w;
            } else {
                s[0] += __ldcg(p + (int64_t)z * zs);
            }
        }
        st(r, c, (const float *)s);
    }
}

#endif /* FD_CUDA_SPLITK_CUH_ */
