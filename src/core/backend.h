/* SPDX-License-Identifier: MIT */
/*
 * backend.h - which backends this build has and whether they can run on this machine.
 * The cuda backend registers itself through fd_cuda_probe when the library is built with
 * CUDA (FD_HAVE_CUDA); generic code sees only these answers, never CUDA headers.
 */
#ifndef FD_CORE_BACKEND_H_
#define FD_CORE_BACKEND_H_

#include "fd.h"

/* 1 when `b` can run here; otherwise 0 and a sentence saying why in `why` (if not NULL). */
int fd_backend_available(fd_backend_t b, char *why, size_t why_size);

/* CUDART_VERSION the library was built with, 0 for a build without CUDA. */
size_t fd_backend_cudart_version(void);

/* Waits for the work queued on the handle's stream (cuda); the host backends finish every call
 * before returning, so there is nothing to wait for. For Find's timer only: compute calls never
 * synchronise. */
cudnnStatus_t fd_backend_sync(cudnnHandle_t handle);

/* Find's timer: runs fn(ctx) (one call of an implementation, queued on the handle's stream on
 * cuda) and puts its time in *ms. On cuda: one untimed run first (the first launch of a kernel
 * loads its module and warms the caches), then FD_FIND_REPS runs, each between two events
 * recorded on the handle's stream, and the median of their times. On the host backends one run
 * by the monotonic clock: the calls finish before returning, and a second run of a slow ref
 * algorithm would double Find's cost for little. The first failing status is returned. */
#define FD_FIND_REPS 3
cudnnStatus_t fd_backend_time(cudnnHandle_t handle, cudnnStatus_t (*fn)(void *ctx), void *ctx,
                              float *ms);

/* `bytes` of zeroed memory where the handle's data lives (device memory on cuda), for Find
 * without caller buffers; *p is NULL for 0 bytes. fd_backend_free(handle, NULL) is a no-op. */
cudnnStatus_t fd_backend_alloc(cudnnHandle_t handle, size_t bytes, void **p);
void fd_backend_free(cudnnHandle_t handle, void *p);

/* cudnnQueryRuntimeError's view of the handle's stream: with wait, waits for it to drain;
 * without, only asks. *idle is 1 when nothing is queued (always, on the host backends). A
 * failed wait or query is CUDNN_STATUS_INTERNAL_ERROR, as cuDNN documents for that call. */
cudnnStatus_t fd_backend_stream_state(cudnnHandle_t handle, int wait, int *idle);

/* A new handle's backend resources (cuda: the handle's scratch, FD_HANDLE_SCRATCH_BYTES of
 * device memory, and its ordering event), their release, and a stream change: work queued on
 * the old stream that may use the scratch is made to precede the new stream's (an event
 * recorded there, waited on here: no host synchronisation). No-ops on the host backends. */
#define FD_HANDLE_SCRATCH_BYTES ((size_t)16 << 20)
cudnnStatus_t fd_backend_handle_init(cudnnHandle_t handle);
void fd_backend_handle_fini(cudnnHandle_t handle);
cudnnStatus_t fd_backend_set_stream(cudnnHandle_t handle, cudaStream_t stream);

/* What the host CPU and its BLAS are, for the cpu algorithm heuristic (src/api/conv.c); the cpu
 * backend answers (src/cpu/gemm.c). FD_CPU_PROFILE_ZEN: an AMD CPU (on the Zen 5 machine of
 * docs/perf/cpu-2026-12-01-zen4.md the Winograd rows lost to the direct row where Sapphire
 * Rapids had them win). FD_CPU_PROFILE_BLAS512: the FLOAT GEMMs run 512-bit kernels: our
 * own AVX-512 SGEMM (src/cpu/sgemm_avx512.c, on any AVX-512F CPU unless FREEDNN_CPU_GEMM=blas),
 * or OpenBLAS's SkylakeX / Cooperlake / SapphireRapids kernels, not narrower ones
 * (OPENBLAS_CORETYPE=Haswell on an AVX-512 machine made its sgemm 1.9x slower).
 * FD_CPU_PROFILE_AVX2ONLY: the CPU lacks AVX-512F, so the direct row is as narrow as the GEMMs
 * and Winograd's fewer products decide (Zen 3, docs/perf/cpu-heuristic-2026-12-05-zen3.md).
 * FREEDNN_CPU_HEURISTIC=spr|zen|zen-avx2|zen3 pins the answer (spr: BLAS512, zen: ZEN and
 * BLAS512, zen-avx2: ZEN only (Zen 4 with OpenBLAS's Haswell kernels), zen3: ZEN and AVX2ONLY).
 * Read at each call (cheap; the tests switch it). */
#define FD_CPU_PROFILE_ZEN 1
#define FD_CPU_PROFILE_BLAS512 2
#define FD_CPU_PROFILE_AVX2ONLY 4
int fd_backend_cpu_profile(void);

/* 1 when the cpu backend's AVX-512F code may run: the CPU has it and FREEDNN_CPU_ISA is not avx2
 * or generic (read once per process; src/cpu/gemm.c). */
int fd_cpu_isa_avx512(void);
#endif /* FD_CORE_BACKEND_H_ */
