/* SPDX-License-Identifier: MIT */
/*
 * conv.c - convolution compute calls (forward, backward data, backward filter, backward bias),
 * workspace queries, and algorithm choice: Get*Algorithm_v7 (heuristic ranking), the cuDNN 7
 * Get*Algorithm (preference + memory limit), Find*Algorithm and Find*AlgorithmEx (timed, and
 * remembered per handle and across processes by the tuning cache, core/tunecache.c).
 *
 * The three directions share one path: problem (core/conv_problem.c) -> implementation
 * (core/dispatch.c) -> run. The three cuDNN perf structs have one layout; fd_perf_t mirrors it.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/backend.h"
#include "../core/conv.h"
#include "../core/logcmd.h"
#include "../core/op.h"
#include "../core/tunecache.h"

/* The common layout of cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t. */
typedef struct {
    int algo;
    cudnnStatus_t status;
    float time;
    size_t memory;
    cudnnDeterminism_t determinism;
    cudnnMathType_t mathType;
    int reserved[3];
} fd_perf_t;
_Static_assert(sizeof(fd_perf_t) == sizeof(cudnnConvolutionFwdAlgoPerf_t), "perf layout");
_Static_assert(sizeof(fd_perf_t) == sizeof(cudnnConvolutionBwdDataAlgoPerf_t), "perf layout");
_Static_assert(sizeof(fd_perf_t) == sizeof(cudnnConvolutionBwdFilterAlgoPerf_t), "perf layout");
_Static_assert(offsetof(fd_perf_t, memory) == offsetof(cudnnConvolutionFwdAlgoPerf_t, memory), "perf layout");
_Static_assert(offsetof(fd_perf_t, determinism) == offsetof(cudnnConvolutionFwdAlgoPerf_t, determinism), "perf layout");
_Static_assert(offsetof(fd_perf_t, mathType) == offsetof(cudnnConvolutionBwdFilterAlgoPerf_t, mathType), "perf layout");

/* Heuristic order per direction: with only reference rows every algorithm costs the same, so
 * the order is the one cuDNN users expect to see first (GEMM-like, then transforms). */
static const int rank_fwd[] = {0, 1, 2, 3, 6, 7, 4, 5};
static const int rank_bwd_data[] = {1, 0, 4, 5, 2, 3};
static const int rank_bwd_filter[] = {1, 0, 3, 5, 2, 6, 4};
_Static_assert(sizeof rank_fwd / sizeof *rank_fwd == CUDNN_CONVOLUTION_FWD_ALGO_COUNT, "rank");
_Static_assert(sizeof rank_bwd_data / sizeof *rank_bwd_data == CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, "rank");
_Static_assert(sizeof rank_bwd_filter / sizeof *rank_bwd_filter == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, "rank");

static const int *rank_of(fd_conv_dir_t dir)
{
    return dir == FD_CONV_FWD ? rank_fwd : dir == FD_CONV_BWD_DATA ? rank_bwd_data : rank_bwd_filter;
}

/* Bytes a tensor addresses (its extent), for the aliasing check. */
static size_t tensor_bytes(const struct cudnnTensorStruct *t)
{
    return (size_t)fd_tensor_extent(t) * fd_dtype_size(t->dtype);
}

static size_t filter_bytes(const struct cudnnFilterStruct *f)
{
    size_t e = fd_dtype_size(f->dtype);
    for (int i = 0; i < f->nb_dims; i++)
        e *= (size_t)f->dim[i];
    /* INT8x4 / UINT8x4 / INT8x32: fd_dtype_size counts a vector of 4 / 32 channels */
    size_t v = f->dtype == CUDNN_DATA_INT8x32 ? 32
               : (f->dtype == CUDNN_DATA_INT8x4 || f->dtype == CUDNN_DATA_UINT8x4) ? 4 : 1;
    return e / v;
}

/* The output of a direction (y, dx or dw) may share no byte with its two inputs: convolution
 * is never computed in place (cuDNN 9.19 answers NOT_SUPPORTED for y == x). ptr and bytes: x,
 * w, y in that order, whatever the direction. */
static cudnnStatus_t check_not_in_place(fd_conv_dir_t dir, const void *const ptr[3], const size_t bytes[3])
{
    static const char *const names[3][3] = {{"y", "x", "w"}, {"dx", "dy", "w"}, {"dw", "x", "dy"}};
    uintptr_t s[3][2];
    for (int i = 0; i < 3; i++)
        s[i][0] = (uintptr_t)ptr[i], s[i][1] = (uintptr_t)ptr[i] + bytes[i] - 1;
    int out = dir == FD_CONV_FWD ? 2 : dir == FD_CONV_BWD_DATA ? 0 : 1;
    int in[2] = {dir == FD_CONV_FWD ? 0 : dir == FD_CONV_BWD_DATA ? 2 : 0,
                 dir == FD_CONV_FWD ? 1 : dir == FD_CONV_BWD_DATA ? 1 : 2};
    for (int i = 0; i < 2; i++)
        FD_CHECK(s[out][0] > s[in[i]][1] || s[in[i]][0] > s[out][1], CUDNN_STATUS_NOT_SUPPORTED,
                 "%s overlaps %s; convolution is not computed in place", names[dir][0], names[dir][1 + i]);
    return CUDNN_STATUS_SUCCESS;
}

/* The workspace checks and the run of a planned call. */
static cudnnStatus_t conv_run(const fd_conv_problem_t *p, int algo, const fd_conv_impl_t *impl, size_t need,
                              const fd_conv_args_t *args, unsigned log)
{
    if (log & FD_LOG_CMD_BIT)
        fd_log_cmd_conv(p, algo, args->handle->backend);
    FD_CHECK(args->workspace_size >= need, CUDNN_STATUS_BAD_PARAM,
             "workSpaceSizeInBytes is %zu but %s (%s) needs %zu", args->workspace_size,
             fd_conv_algo_name(p->dir, algo), impl->name, need);
    FD_CHECK(need == 0 || args->workspace != NULL, CUDNN_STATUS_BAD_PARAM,
             "workSpace is NULL but %s needs %zu bytes", impl->name, need);
    return impl->run(p, args);
}

/* The three compute calls: descriptors and pointers in problem_init's order (x, w, y, whatever
 * the direction names them), the output the one `dir` writes. A call on descriptors the handle
 * has planned before (core/conv_plan.c) skips the problem, the selection and the workspace
 * query; with FREEDNN_LOG_DISPATCH set every call takes the checked path (it logs the choice). */
static cudnnStatus_t conv_call(cudnnHandle_t handle, fd_conv_dir_t dir, int algo, cudnnTensorDescriptor_t xd,
                               const void *x, cudnnFilterDescriptor_t wd, const void *w,
                               cudnnConvolutionDescriptor_t cd, cudnnTensorDescriptor_t yd, const void *y,
                               const void *alpha, const void *beta, void *workspace, size_t workspace_size)
{
    const void *const ptr[3] = {x, w, y};
    fd_conv_args_t a = {handle, dir == FD_CONV_BWD_DATA ? NULL : x, dir == FD_CONV_BWD_FILTER ? NULL : w,
                        dir == FD_CONV_FWD ? NULL : y, (void *)ptr[dir == FD_CONV_FWD ? 2 : dir == FD_CONV_BWD_DATA ? 0 : 1],
                        0.0, 0.0, workspace, workspace_size, NULL};
    const unsigned log = fd_env_log_flags();
    const int logged = (log & FD_LOG_DISPATCH_BIT) != 0;
    fd_conv_plan_t *pl = logged ? NULL : fd_conv_plan_find(handle, dir, algo, xd, wd, cd, yd);
    if (pl != NULL) {
        FD_TRY(check_not_in_place(dir, ptr, pl->bytes));
        const cudnnDataType_t st = dir == FD_CONV_FWD ? pl->p.ydt : dir == FD_CONV_BWD_DATA ? pl->p.xdt : pl->p.wdt;
        a.alpha = fd_scale_value(alpha, st), a.beta = fd_scale_value(beta, st);
        a.state = pl->state;
        return conv_run(&pl->p, algo, pl->impl, pl->need, &a, log);
    }
    fd_conv_problem_t p;
    FD_TRY(fd_conv_problem_init(&p, dir, xd, wd, cd, yd));
    const size_t bytes[3] = {tensor_bytes(xd), filter_bytes(wd), tensor_bytes(yd)};
    FD_TRY(check_not_in_place(dir, ptr, bytes));
    const cudnnDataType_t st = dir == FD_CONV_FWD ? p.ydt : dir == FD_CONV_BWD_DATA ? p.xdt : p.wdt;
    a.alpha = fd_scale_value(alpha, st), a.beta = fd_scale_value(beta, st);
    FD_CHECK(algo >= 0 && algo < fd_conv_algo_count(dir), CUDNN_STATUS_NOT_SUPPORTED,
             "algo %d is not an algorithm of this direction (0..%d)", algo, fd_conv_algo_count(dir) - 1);
    char why[512];
    const fd_conv_impl_t *impl = fd_conv_select(&p, handle->backend, algo, why, sizeof why);
    FD_CHECK(impl != NULL, CUDNN_STATUS_NOT_SUPPORTED, "%s: %s", fd_conv_algo_name(dir, algo), why);
    const size_t need = impl->workspace(&p);
    pl = logged ? NULL : fd_conv_plan_store(handle, dir, algo, xd, wd, cd, yd, &p, impl, need);
    if (pl == NULL)
        return conv_run(&p, algo, impl, need, &a, log);
    memcpy(pl->bytes, bytes, sizeof bytes);
    a.state = pl->state;
    return conv_run(&pl->p, algo, impl, need, &a, log);
}

cudnnStatus_t CUDNNWINAPI cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
                                                  const cudnnTensorDescriptor_t xDesc, const void *x,
                                                  const cudnnFilterDescriptor_t wDesc, const void *w,
                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                  cudnnConvolutionFwdAlgo_t algo, void *workSpace,
                                                  size_t workSpaceSizeInBytes, const void *beta,
                                                  const cudnnTensorDescriptor_t yDesc, void *y)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(alpha && beta && x && w && y, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha %p, beta %p, x %p, w %p, y %p)", alpha, beta, x, w, y);
    return conv_call(handle, FD_CONV_FWD, (int)algo, xDesc, x, wDesc, w, convDesc, yDesc, y, alpha, beta,
                     workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardData(cudnnHandle_t handle, const void *alpha,
                                                       const cudnnFilterDescriptor_t wDesc, const void *w,
                                                       const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                       cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                                       size_t workSpaceSizeInBytes, const void *beta,
                                                       const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(alpha && beta && w && dy && dx, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha %p, beta %p, w %p, dy %p, dx %p)", alpha, beta, w, dy, dx);
    return conv_call(handle, FD_CONV_BWD_DATA, (int)algo, dxDesc, dx, wDesc, w, convDesc, dyDesc, dy, alpha,
                     beta, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void *alpha,
                                                         const cudnnTensorDescriptor_t xDesc, const void *x,
                                                         const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                         const cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnConvolutionBwdFilterAlgo_t algo,
                                                         void *workSpace, size_t workSpaceSizeInBytes,
                                                         const void *beta,
                                                         const cudnnFilterDescriptor_t dwDesc, void *dw)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(alpha && beta && x && dy && dw, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha %p, beta %p, x %p, dy %p, dw %p)", alpha, beta, x, dy, dw);
    return conv_call(handle, FD_CONV_BWD_FILTER, (int)algo, xDesc, x, dwDesc, dw, convDesc, dyDesc, dy, alpha,
                     beta, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void *alpha,
                                                       const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                       const void *beta,
                                                       const cudnnTensorDescriptor_t dbDesc, void *db)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(alpha && beta && dy && db, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha %p, beta %p, dy %p, db %p)", alpha, beta, dy, db);
    FD_TRY(fd_tensor_check(dyDesc, "dyDesc"));
    FD_TRY(fd_tensor_check(dbDesc, "dbDesc"));
    FD_CHECK(dyDesc->nb_dims >= 3 && dbDesc->nb_dims == dyDesc->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "dyDesc has %d dims and dbDesc %d; both need the same rank, at least 3",
             dyDesc->nb_dims, dbDesc->nb_dims);
    for (int i = 0; i < dbDesc->nb_dims; i++)
        FD_CHECK(dbDesc->dim[i] == (i == 1 ? dyDesc->dim[1] : 1), CUDNN_STATUS_BAD_PARAM,
                 "dbDesc dim %d is %d; db must be 1 x K x 1... with K = %d", i, dbDesc->dim[i],
                 dyDesc->dim[1]);
    FD_CHECK(dyDesc->dtype == dbDesc->dtype, CUDNN_STATUS_NOT_SUPPORTED,
             "dyDesc is %s but dbDesc is %s", fd_dtype_name(dyDesc->dtype), fd_dtype_name(dbDesc->dtype));
    FD_CHECK(dyDesc->dtype == CUDNN_DATA_FLOAT || dyDesc->dtype == CUDNN_DATA_DOUBLE ||
                 dyDesc->dtype == CUDNN_DATA_HALF || dyDesc->dtype == CUDNN_DATA_BFLOAT16,
             CUDNN_STATUS_NOT_SUPPORTED, "bias gradient on %s data is not implemented",
             fd_dtype_name(dyDesc->dtype));
    const uintptr_t a0 = (uintptr_t)dy, a1 = a0 + tensor_bytes(dyDesc) - 1;
    const uintptr_t b0 = (uintptr_t)db, b1 = b0 + tensor_bytes(dbDesc) - 1;
    FD_CHECK(a0 > b1 || b0 > a1, CUDNN_STATUS_NOT_SUPPORTED, "db overlaps dy");
    fd_bias_problem_t p = {*dyDesc, *dbDesc};
    fd_bias_args_t a = {handle, dy, db, fd_scale_value(alpha, dbDesc->dtype),
                        fd_scale_value(beta, dbDesc->dtype)};
    return fd_op_run(handle, FD_OP_CONV_BWD_BIAS, &p, &a);
}

/* ---- workspace ------------------------------------------------------------------------- */

static cudnnStatus_t workspace_size(cudnnHandle_t handle, const fd_conv_problem_t *p, int algo,
                                    size_t *sizeInBytes)
{
    FD_CHECK_NOT_NULL(sizeInBytes);
    FD_CHECK(algo >= 0 && algo < fd_conv_algo_count(p->dir), CUDNN_STATUS_NOT_SUPPORTED,
             "algo %d is not an algorithm of this direction (0..%d)", algo, fd_conv_algo_count(p->dir) - 1);
    char why[512];
    const fd_conv_impl_t *impl = fd_conv_select(p, handle->backend, algo, why, sizeof why);
    FD_CHECK(impl != NULL, CUDNN_STATUS_NOT_SUPPORTED, "%s: %s", fd_conv_algo_name(p->dir, algo), why);
    *sizeInBytes = impl->workspace(p);
    return CUDNN_STATUS_SUCCESS;
}

/* The three workspace queries: a plan of the handle for these descriptors and algorithm answers
 * without the checks (the plan was made by a checked compute call), else the checked path. */
static cudnnStatus_t workspace_query(cudnnHandle_t handle, fd_conv_dir_t dir, int algo, cudnnTensorDescriptor_t xd,
                                     cudnnFilterDescriptor_t wd, cudnnConvolutionDescriptor_t cd,
                                     cudnnTensorDescriptor_t yd, size_t *sizeInBytes)
{
    const fd_conv_plan_t *pl = (fd_env_log_flags() & FD_LOG_DISPATCH_BIT) != 0
                                   ? NULL
                                   : fd_conv_plan_find(handle, dir, algo, xd, wd, cd, yd);
    if (pl != NULL) {
        FD_CHECK_NOT_NULL(sizeInBytes);
        *sizeInBytes = pl->need;
        return CUDNN_STATUS_SUCCESS;
    }
    fd_conv_problem_t p;
    FD_TRY(fd_conv_problem_init(&p, dir, xd, wd, cd, yd));
    return workspace_size(handle, &p, algo, sizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle,
                                                                  const cudnnTensorDescriptor_t xDesc,
                                                                  const cudnnFilterDescriptor_t wDesc,
                                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                                  const cudnnTensorDescriptor_t yDesc,
                                                                  cudnnConvolutionFwdAlgo_t algo,
                                                                  size_t *sizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    return workspace_query(handle, FD_CONV_FWD, (int)algo, xDesc, wDesc, convDesc, yDesc, sizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle,
                                                                       const cudnnFilterDescriptor_t wDesc,
                                                                       const cudnnTensorDescriptor_t dyDesc,
                                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                                       const cudnnTensorDescriptor_t dxDesc,
                                                                       cudnnConvolutionBwdDataAlgo_t algo,
                                                                       size_t *sizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    return workspace_query(handle, FD_CONV_BWD_DATA, (int)algo, dxDesc, wDesc, convDesc, dyDesc, sizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t handle,
                                                                         const cudnnTensorDescriptor_t xDesc,
                                                                         const cudnnTensorDescriptor_t dyDesc,
                                                                         const cudnnConvolutionDescriptor_t convDesc,
                                                                         const cudnnFilterDescriptor_t gradDesc,
                                                                         cudnnConvolutionBwdFilterAlgo_t algo,
                                                                         size_t *sizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    return workspace_query(handle, FD_CONV_BWD_FILTER, (int)algo, xDesc, gradDesc, convDesc, dyDesc, sizeInBytes);
}

/* ---- algorithm choice ------------------------------------------------------------------ */

static cudnnStatus_t max_count(cudnnHandle_t handle, fd_conv_dir_t dir, int *count)
{
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(count);
    *count = fd_conv_algo_count(dir);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
    FD_API(handle);
    return max_count(handle, FD_CONV_FWD, count);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
    FD_API(handle);
    return max_count(handle, FD_CONV_BWD_DATA, count);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
    FD_API(handle);
    return max_count(handle, FD_CONV_BWD_FILTER, count);
}

/* cuda's rule (rank_all otherwise orders by src/impls.def's rows, fastest first): FLOAT under
 * FMA math (the FFMA rows' problems), 2-d 3x3 stride 1 dilation 1, groups 1, every direction:
 * the non-fused Winograd rows (src/cuda/conv_winograd.cu) when C K / (C + K) >= 16, i.e. when
 * its 36 tile GEMMs are deep and wide enough. Measured on the H200 (dnnbench, f32 NCHW,
 * docs/perf/gpu-newrows-2026-12-01.md): 2.4-7.6x faster than the FFMA implicit GEMM and 1.1-3.7x
 * faster than NVIDIA cuDNN 9.19's own choice on eight 3x3 layers with C = K = 64-512 at N =
 * 8-32. Backward filter asks C K / (C + K) >= 32: on the H100 (f32 NCHW, DeepBench and
 * ResNet-50, docs/perf/gpu-wgrad-2026-12-06c-h100.md) its Winograd row was 1.11-3.36x faster
 * than the FFMA implicit GEMM on the 3x3 layers from 32 up but one (n16c64h6w60k128, 480 tiles:
 * 0.94x), and 0.71x at 21 (n16c32h12w120k64: 36 GEMMs of 64 x 32). Only when the Winograd row
 * itself serves the enum (FREEDNN_WINOGRAD=0 leaves it to the naive row, which must not come
 * first). */
static int cuda_heuristic_first(const fd_conv_problem_t *p)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->compute != CUDNN_DATA_FLOAT || p->math != CUDNN_FMA_MATH ||
        p->nsp != 2 || p->groups != 1 ||
        p->c * p->k < (p->dir == FD_CONV_BWD_FILTER ? 32 : 16) * (p->c + p->k))
        return -1;
    for (int d = 1; d < FD_CONV_SPATIAL_MAX; d++)
        if (p->flt[d] != 3 || p->stride[d] != 1 || p->dil[d] != 1)
            return -1;
    /* and enough work to repay its three launches: N P Q C K >= 1e7 (the smallest layer Find
     * gave Winograd in DeepBench / ResNet-50 has 4.7e7; bench/host_overhead's n1c64h8w8k64,
     * 2.6e5, took 17.5 us of host time and 18.9 us of GPU time on Winograd against ~4 and ~6 on
     * the one-launch FFMA row, docs/perf/gpu-host-2026-12-01.md) */
    if ((double)p->n * (double)p->out[1] * (double)p->out[2] * (double)p->c * (double)p->k < 1e7)
        return -1;
    const int algo = p->dir == FD_CONV_FWD ? (int)CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED
                     : p->dir == FD_CONV_BWD_DATA
                         ? (int)CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED
                         : (int)CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
    char why[512];
    const fd_conv_impl_t *impl = fd_conv_select(p, FD_BACKEND_CUDA, algo, why, sizeof why);
    return impl != NULL && strstr(impl->name, "winograd") != NULL ? algo : -1;
}

/* The algorithm the heuristic moves to the front for this problem, or -1. Measured rules, on
 * cpu for FLOAT 2-d layers of groups 1, one thread (dnnbench --algo=heur against --algo=find,
 * bench/heur_vs_find.py: ResNet-50 at N = 1 in docs/perf/cpu-vs-onednn-2026-11-30.md, the
 * DeepBench training set at its own N = 4-32 in docs/perf/cpu-heuristic-2026-11-30.md):
 * - forward with one input channel, or up to three under a filter of at most 3x3 (DeepBench's
 *   speech front ends, 5x20 and 5x5 stride 2, and the 3-channel 3x3 image layers): im2col +
 *   GEMM, 1.5-30x faster than the direct row and Winograd, whose per-channel costs (packing,
 *   transforms) C = 1-3 does not amortise; ResNet's 7x7 conv1 (C = 3) stays direct (2x);
 * - Winograd F(4x4,3x3) for 3x3 stride-1 layers, fwd: at N = 1 for 28 x 28 outputs and more
 *   (ResNet-50); at N > 1 when C * K * P * Q >= 3e7 (its transform buffers grow with N, and
 *   only layers whose tile GEMMs are that large repay them: DeepBench's VGG / speech 3x3 layers
 *   split exactly there, 1.2-2x each way; ResNet's C = 64 56x56 at N = 8, 1.3e7, runs 1.8x
 *   faster direct); bwd data at N > 1 when C * K * P * Q >= 6e7 (1.2-2.3x; at 5e7 the two
 *   tie);
 * - stride-1 backward data above 1x1 otherwise: the direct row (ALGO_1,
 *   conv_direct_bwd_cpu.c) scales with the threads; Winograd's and col2im's transforms stay
 *   serial around the pthread OpenBLAS (measured 1.8x vs 1.0-1.3x from 1 to 2 threads on
 *   ResNet-50's 3x3 layers at N = 1);
 * - otherwise, forward, the direct row (src/cpu/conv_direct_cpu.c, enum DIRECT) beats im2col +
 *   GEMM on every filter larger than 1x1, on padded 1x1 layers (DeepBench's 1x1 pad 3
 *   stride 2: 1.3-2.9x; im2col multiplies the padding's zeros) and on 1x1 stride-1 layers of
 *   few outputs per image: at most 14 x 14 at N = 1 (ties with the 1x1 GEMM on one thread,
 *   wins on two: OpenBLAS packs the large filter for few columns), at most 7 x 7 at N > 1
 *   (1.15-1.46x on DeepBench's N = 16 layers; at 14 x 14 the 1x1 GEMM wins 1.1-2x there);
 *   other 1x1 layers stay with the GEMM rows, and so do layers of fewer than 16 output
 *   channels (the direct row computes 16 (AVX-512) or 8 at a time). */
static int heuristic_first(cudnnHandle_t handle, const fd_conv_problem_t *p)
{
    if (handle->backend == FD_BACKEND_CUDA)
        return cuda_heuristic_first(p);
    /* INT8 on cpu: IMPLICIT_PRECOMP_GEMM is the VNNI row's (src/cpu/conv_int8_cpu.c, ~800x the
     * ref at ResNet-50's 3x3 layers); IMPLICIT_GEMM promises no workspace, so only the ref serves it */
    if (handle->backend == FD_BACKEND_CPU && fd_conv_is_int8(p) && p->dir == FD_CONV_FWD)
        return CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    /* HALF and BFLOAT16 run on the FLOAT rows through FLOAT copies (src/cpu/conv_lowp_cpu.c,
     * one row per enum family), so the FLOAT rules pick for them too */
    const int lowp = p->xdt == CUDNN_DATA_HALF || p->xdt == CUDNN_DATA_BFLOAT16;
    if (handle->backend != FD_BACKEND_CPU || p->nsp != 2 || p->groups != 1 ||
        !(lowp || (p->xdt == CUDNN_DATA_FLOAT && p->compute == CUDNN_DATA_FLOAT)))
        return -1;
    int wino = 1, one = 1, unit_stride = 1, padded = 0, small_filter = 1;
    for (int d = 1; d < FD_CONV_SPATIAL_MAX; d++) {
        wino &= p->flt[d] == 3 && p->stride[d] == 1 && p->dil[d] == 1;
        one &= p->flt[d] == 1;
        unit_stride &= p->stride[d] == 1;
        padded |= p->pad[d] != 0;
        small_filter &= p->flt[d] <= 3;
    }
    const double pq = (double)p->out[1] * (double)p->out[2];
    const double ckpq = (double)p->c * (double)p->k * pq;
    const int prof = fd_backend_cpu_profile(), zen = (prof & FD_CPU_PROFILE_ZEN) != 0,
              blas512 = (prof & FD_CPU_PROFILE_BLAS512) != 0;
    /* Intel with AVX-512 (neither AMD nor AVX2-only; docs/perf/cpu-heuristic-2026-12-05-intel.md,
     * dnnbench's cold caches, one thread): the direct row beat im2col + GEMM 2x on DeepBench's
     * 3-channel 3x3 layers (n8 / n16 c3 224 x 224), so only one input channel keeps im2col */
    const int intel512 = blas512 && !zen && !(prof & FD_CPU_PROFILE_AVX2ONLY);
    if (p->dir == FD_CONV_FWD && (p->c == 1 || (p->c <= 3 && small_filter && !intel512)))
        return CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    /* Without AVX-512 the direct row is 8 lanes wide like the GEMMs, and Winograd's fewer
     * products win the 3x3 stride-1 layers at N > 1 from C K P Q = 3e7, and from 1.2e7 where
     * C K >= 256 x 256: forward 1.05-2.5x, backward data 1.1-2.0x on DeepBench's layers on a
     * Zen 3; the direct row / ALGO_1 won the smaller C K ones (c128 k128 28 x 28) and N = 1
     * (docs/perf/cpu-heuristic-2026-12-05-zen3.md) */
    if ((prof & FD_CPU_PROFILE_AVX2ONLY) && wino && p->n > 1 &&
        (ckpq >= 3e7 || (ckpq >= 1.2e7 && (double)p->c * (double)p->k >= 65536.0))) {
        if (p->dir == FD_CONV_FWD)
            return CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
        if (p->dir == FD_CONV_BWD_DATA)
            return CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD;
    }
    /* AMD with OpenBLAS on narrower than AVX-512 kernels: every other forward goes direct (on
     * a Zen 4, whose direct row is AVX-512: Find chose it on 46 of the 48 DeepBench forward
     * layers the rules below sent to the GEMM or Winograd rows there, and on every ResNet-50
     * N = 1 forward layer) */
    if (zen && !blas512 && p->dir == FD_CONV_FWD && p->k >= 16)
        return CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
    if (wino && p->n > 1) {
        if (p->dir == FD_CONV_FWD && ckpq >= 3e7)
            return CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
        if (p->dir == FD_CONV_BWD_DATA && ckpq >= 6e7)
            return CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD;
    }
    /* Intel with AVX-512, N = 1: Winograd for 3x3 stride-1 layers of 28 x 28 outputs and more,
     * in all three directions, since its transforms run on AVX-512 (conv_winograd.c; 1.4-2.7x
     * the direct row and ALGO_1 on ResNet-50's 56 x 56 and 28 x 28 layers; at 14 x 14 the
     * 256 x 256 filter's transform, 4x its size in double, costs more than it saves:
     * docs/perf/cpu-winograd-2026-12-06.md) */
    if (intel512 && wino && p->n == 1 && pq >= 28 * 28) {
        if (p->dir == FD_CONV_FWD)
            return CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
        if (p->dir == FD_CONV_BWD_DATA)
            return CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD;
        return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
    }
    if (p->dir == FD_CONV_BWD_DATA && unit_stride && !one)
        return CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    /* AMD (Zen 4, FD_CPU_PROFILE_ZEN): no Winograd at N = 1, the direct row below was 1.3-1.9x
     * faster on ResNet-50's 56x56 and 28x28 3x3 layers (docs/perf/cpu-2026-12-01-zen4.md),
     * measured before the transforms ran on AVX-512 (on Intel that reversed the order, above) */
    if (wino && p->n == 1 && pq >= 28 * 28 && p->dir == FD_CONV_FWD && !zen && !intel512)
        return CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
    /* AMD with AVX-512 GEMMs (our own SGEMM, src/cpu/sgemm_avx512.c): also strided 1x1 forward
     * layers (Find's first on 22 of 23 in DeepBench training and ResNet-50 N = 1, the GEMM row
     * 1-12% slower: it multiplies a gathered copy) and 1x1 layers of 14 x 14 outputs at N > 1
     * (8 of 8 in DeepBench, by 4-12%) go direct (docs/perf/cpu-gemm-2026-12-01.md). Intel with
     * AVX-512: the strided 1x1 layers too (1.6x on DeepBench's 64 -> 256 at 56 x 56, ties or
     * up to 8% on the others). */
    const int small_1x1 = one && unit_stride && pq <= (p->n == 1 || zen ? 14 * 14 : 7 * 7);
    if (p->dir == FD_CONV_FWD &&
        (!one || small_1x1 || padded || ((zen || intel512) && !unit_stride)) && p->k >= 16)
        return CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
    return -1;
}

/* One perf entry per algorithm, in heuristic order, supported ones first. */
static int rank_all(cudnnHandle_t handle, const fd_conv_problem_t *p, fd_perf_t *out,
                    const fd_conv_impl_t **impls)
{
    int count = fd_conv_algo_count(p->dir), n = 0;
    int rank[CUDNN_CONVOLUTION_FWD_ALGO_COUNT]; /* the longest of the three enums */
    _Static_assert((int)CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT <= (int)CUDNN_CONVOLUTION_FWD_ALGO_COUNT &&
                       (int)CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT <= (int)CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                   "rank[] holds every direction's enum");
    const int first = heuristic_first(handle, p);
    rank[0] = first;
    for (int i = 0, j = first >= 0; i < count; i++)
        if (rank_of(p->dir)[i] != first)
            rank[j++] = rank_of(p->dir)[i];
    /* pass 0: algorithms the handle's own backend serves; 1: those served by the fallback
     * (cpu -> ref, far slower) and, before them in rank order, rows flagged FD_IMPL_LATE: the
     * cpu's implicit GEMMs (src/cpu/conv_implicit.c, for callers that allow no workspace; they
     * gather the column matrix again for every 96 output channels, so the
     * rows that may take a workspace rank first, as they did when the ref served those enums:
     * ResNet-50 N = 1, one thread, forward 1024 -> 2048 1x1 stride 2, 124 against 102
     * GFLOP/s); 2: unsupported ones. */
    for (int pass = 0; pass < 3; pass++) {
        for (int i = 0; i < count; i++) {
            int algo = rank[i];
            char why[512];
            const fd_conv_impl_t *impl = fd_conv_select(p, handle->backend, algo, why, sizeof why);
            int klass = impl == NULL ? 2 : impl->backend == handle->backend ? 0 : 1;
            if (handle->backend == FD_BACKEND_REF && klass == 1)
                klass = 0;
            if (klass == 0 && algo != first && (impl->flags & FD_IMPL_LATE))
                klass = 1;
            if (klass != pass)
                continue;
            fd_perf_t e = {.algo = algo, .time = -1.0f, .mathType = p->math};
            e.status = impl ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED;
            e.memory = impl ? impl->workspace(p) : 0;
            e.determinism = (impl && (impl->flags & FD_IMPL_DET)) ? CUDNN_DETERMINISTIC
                                                                  : CUDNN_NON_DETERMINISTIC;
            impls[n] = impl;
            out[n++] = e;
        }
    }
    /* cuda: src/impls.def lists its rows fastest first (tensor cores, their channel-padding
     * wrapper, FFMA implicit GEMM, naive), so among the supported algorithms the one served by
     * the earliest row comes first; ties keep the order above; the heuristic's own pick
     * (cuda_heuristic_first) stays first. */
    if (handle->backend == FD_BACKEND_CUDA)
        for (int i = 1; i < n && impls[i] != NULL; i++)
            for (int j = i; j > 0 && impls[j]->backend == FD_BACKEND_CUDA &&
                            (impls[j - 1]->backend != FD_BACKEND_CUDA || impls[j] < impls[j - 1]);
                 j--) {
                fd_perf_t te = out[j];
                const fd_conv_impl_t *ti = impls[j];
                out[j] = out[j - 1], impls[j] = impls[j - 1];
                out[j - 1] = te, impls[j - 1] = ti;
            }
    if (handle->backend == FD_BACKEND_CUDA && first >= 0)
        for (int i = 1; i < n && impls[i] != NULL; i++)
            if (out[i].algo == first) {
                fd_perf_t te = out[i];
                const fd_conv_impl_t *ti = impls[i];
                memmove(out + 1, out, sizeof(fd_perf_t) * (size_t)i);
                memmove(impls + 1, impls, sizeof(impls[0]) * (size_t)i);
                out[0] = te, impls[0] = ti;
                break;
            }
    return n;
}

/* Where an entry sorts: 0 a timed success, 1 a success Find did not time (time -1: see
 * find_timed), 2 the rest. */
static int sort_class(const fd_perf_t *e)
{
    return e->status != CUDNN_STATUS_SUCCESS ? 2 : e->time < 0.0f ? 1 : 0;
}

/* Stable insertion sort: timed successes by time, then the untimed successes, then the rest,
 * each group in its order. */
static void sort_by_time(fd_perf_t *all, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            fd_perf_t *a = &all[j - 1], *b = &all[j];
            int ca = sort_class(a), cb = sort_class(b);
            if (ca < cb || (ca == cb && (ca != 0 || a->time <= b->time)))
                break;
            fd_perf_t t = *a;
            *a = *b, *b = t;
        }
}

static const fd_tune_entry_t *record_entry(const fd_tune_record_t *rec, int algo)
{
    for (int i = 0; i < rec->count; i++)
        if (rec->e[i].algo == algo)
            return &rec->e[i];
    return NULL;
}

/* Get*Algorithm_v7 when a Find of the same problem is known (this handle's, or the tuning
 * file's): the algorithms Find timed come first, by measured time and with those times; the
 * other supported ones (including those Find reported untimed, time -1) follow in heuristic
 * order, then the unsupported. */
static void order_by_cache(cudnnHandle_t handle, const fd_conv_problem_t *p, fd_perf_t *all, int n)
{
    fd_tune_record_t rec;
    if (!fd_tunecache_lookup(handle, p, FD_TUNE_FOR_GET, &rec))
        return;
    fd_perf_t timed[CUDNN_CONVOLUTION_FWD_ALGO_COUNT], rest[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int nt = 0, nr = 0;
    for (int i = 0; i < n; i++) {
        const fd_tune_entry_t *e = record_entry(&rec, all[i].algo);
        if (all[i].status == CUDNN_STATUS_SUCCESS && e != NULL &&
            e->status == CUDNN_STATUS_SUCCESS && e->time >= 0.0f && e->memory == all[i].memory) {
            timed[nt] = all[i];
            timed[nt++].time = e->time;
        } else {
            rest[nr++] = all[i];
        }
    }
    if (nt == 0)
        return;
    sort_by_time(timed, nt);
    memcpy(all, timed, sizeof(fd_perf_t) * (size_t)nt);
    memcpy(all + nt, rest, sizeof(fd_perf_t) * (size_t)nr);
    fd_tunecache_note(handle, FD_TUNE_GET_HIT);
}

static cudnnStatus_t get_v7(cudnnHandle_t handle, const fd_conv_problem_t *p, int requested,
                            int *returned, void *perf_results)
{
    FD_CHECK(returned != NULL, CUDNN_STATUS_BAD_PARAM, "returnedAlgoCount is NULL");
    FD_CHECK(perf_results != NULL, CUDNN_STATUS_BAD_PARAM, "perfResults is NULL");
    FD_CHECK(requested >= 1, CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount is %d; it must be at least 1",
             requested);
    fd_perf_t all[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    const fd_conv_impl_t *impls[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int n = rank_all(handle, p, all, impls);
    order_by_cache(handle, p, all, n);
    n = n < requested ? n : requested;
    memcpy(perf_results, all, sizeof(fd_perf_t) * (size_t)n);
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t handle,
                                                                 const cudnnTensorDescriptor_t srcDesc,
                                                                 const cudnnFilterDescriptor_t filterDesc,
                                                                 const cudnnConvolutionDescriptor_t convDesc,
                                                                 const cudnnTensorDescriptor_t destDesc,
                                                                 const int requestedAlgoCount,
                                                                 int *returnedAlgoCount,
                                                                 cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    fd_conv_problem_t p;
    FD_TRY(fd_conv_problem_init(&p, FD_CONV_FWD, srcDesc, filterDesc, convDesc, destDesc));
    return get_v7(handle, &p, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t handle,
                                                                      const cudnnFilterDescriptor_t filterDesc,
                                                                      const cudnnTensorDescriptor_t diffDesc,
                                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                                      const cudnnTensorDescriptor_t gradDesc,
                                                                      const int requestedAlgoCount,
                                                                      int *returnedAlgoCount,
                                                                      cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    fd_conv_problem_t p;
    FD_TRY(fd_conv_problem_init(&p, FD_CONV_BWD_DATA, gradDesc, filterDesc, convDesc, diffDesc));
    return get_v7(handle, &p, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t handle,
                                                                        const cudnnTensorDescriptor_t srcDesc,
                                                                        const cudnnTensorDescriptor_t diffDesc,
                                                                        const cudnnConvolutionDescriptor_t convDesc,
                                                                        const cudnnFilterDescriptor_t gradDesc,
                                                                        const int requestedAlgoCount,
                                                                        int *returnedAlgoCount,
                                                                        cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    fd_conv_problem_t p;
    FD_TRY(fd_conv_problem_init(&p, FD_CONV_BWD_FILTER, srcDesc, gradDesc, convDesc, diffDesc));
    return get_v7(handle, &p, requestedAlgoCount, returnedAlgoCount, perfResults);
}

/* cuDNN 7's Get*Algorithm: preference 0 = no workspace, 1 = fastest, 2 = within memoryLimit. */
static cudnnStatus_t get_v6(cudnnHandle_t handle, const fd_conv_problem_t *p, int preference,
                            size_t limit, int *algo)
{
    FD_CHECK_NOT_NULL(algo);
    FD_CHECK(preference >= 0 && preference <= 2, CUDNN_STATUS_BAD_PARAM,
             "preference %d is not NO_WORKSPACE (0), PREFER_FASTEST (1) or SPECIFY_WORKSPACE_LIMIT (2)",
             preference);
    fd_perf_t all[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    const fd_conv_impl_t *impls[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int n = rank_all(handle, p, all, impls);
    size_t cap = preference == 0 ? 0 : preference == 1 ? (size_t)-1 : limit;
    for (int i = 0; i < n; i++) {
        if (all[i].status == CUDNN_STATUS_SUCCESS && all[i].memory <= cap) {
            *algo = all[i].algo;
            return CUDNN_STATUS_SUCCESS;
        }
    }
    return fd_error(CUDNN_STATUS_NOT_SUPPORTED, __FILE__, __LINE__,
                    "no algorithm fits a workspace of %zu bytes", cap);
}

/* The three cuDNN 7 Get*Algorithm entries: descriptors -> problem -> get_v6. */
static cudnnStatus_t get_v6_entry(cudnnHandle_t handle, fd_conv_dir_t dir, cudnnTensorDescriptor_t xDesc,
                                  cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                                  cudnnTensorDescriptor_t yDesc, int preference, size_t limit, int *algo)
{
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(algo != NULL, CUDNN_STATUS_BAD_PARAM, "algo is NULL");
    fd_conv_problem_t p;
    FD_TRY(fd_conv_problem_init(&p, dir, xDesc, wDesc, convDesc, yDesc));
    return get_v6(handle, &p, preference, limit, algo);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardAlgorithm(cudnnHandle_t handle,
                                                              const cudnnTensorDescriptor_t xDesc,
                                                              const cudnnFilterDescriptor_t wDesc,
                                                              const cudnnConvolutionDescriptor_t convDesc,
                                                              const cudnnTensorDescriptor_t yDesc,
                                                              cudnnConvolutionFwdPreference_t preference,
                                                              size_t memoryLimitInBytes,
                                                              cudnnConvolutionFwdAlgo_t *algo)
{
    FD_API(handle);
    int a = 0;
    FD_TRY(get_v6_entry(handle, FD_CONV_FWD, xDesc, wDesc, convDesc, yDesc, (int)preference, memoryLimitInBytes,
                        algo ? &a : NULL));
    *algo = (cudnnConvolutionFwdAlgo_t)a;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataAlgorithm(cudnnHandle_t handle,
                                                                   const cudnnFilterDescriptor_t wDesc,
                                                                   const cudnnTensorDescriptor_t dyDesc,
                                                                   const cudnnConvolutionDescriptor_t convDesc,
                                                                   const cudnnTensorDescriptor_t dxDesc,
                                                                   cudnnConvolutionBwdDataPreference_t preference,
                                                                   size_t memoryLimitInBytes,
                                                                   cudnnConvolutionBwdDataAlgo_t *algo)
{
    FD_API(handle);
    int a = 0;
    FD_TRY(get_v6_entry(handle, FD_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc, (int)preference, memoryLimitInBytes,
                        algo ? &a : NULL));
    *algo = (cudnnConvolutionBwdDataAlgo_t)a;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterAlgorithm(cudnnHandle_t handle,
                                                                     const cudnnTensorDescriptor_t xDesc,
                                                                     const cudnnTensorDescriptor_t dyDesc,
                                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                                     const cudnnFilterDescriptor_t dwDesc,
                                                                     cudnnConvolutionBwdFilterPreference_t preference,
                                                                     size_t memoryLimitInBytes,
                                                                     cudnnConvolutionBwdFilterAlgo_t *algo)
{
    FD_API(handle);
    int a = 0;
    FD_TRY(get_v6_entry(handle, FD_CONV_BWD_FILTER, xDesc, dwDesc, convDesc, dyDesc, (int)preference, memoryLimitInBytes,
                        algo ? &a : NULL));
    *algo = (cudnnConvolutionBwdFilterAlgo_t)a;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- Find: time every supported algorithm (on cpu, the ref fallback only on small problems) - */

static cudnnStatus_t find_return(const fd_perf_t *all, int n, int requested, int *returned,
                                 void *perf_results)
{
    n = n < requested ? n : requested;
    memcpy(perf_results, all, sizeof(fd_perf_t) * (size_t)n);
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}

/* Keeps a timed ranking in the tuning cache. An algorithm this Find could not time for lack
 * of workspace keeps the time an earlier Find with more workspace measured. */
static void remember(cudnnHandle_t handle, const fd_conv_problem_t *p, const fd_perf_t *all, int n)
{
    fd_perf_t keep[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    memcpy(keep, all, sizeof(fd_perf_t) * (size_t)n);
    fd_tune_record_t rec;
    int have_old = -1, merged = 0;
    for (int i = 0; i < n; i++) {
        if (keep[i].status != CUDNN_STATUS_ALLOC_FAILED)
            continue;
        if (have_old < 0)
            have_old = fd_tunecache_lookup(handle, p, FD_TUNE_FOR_GET, &rec);
        const fd_tune_entry_t *e = have_old ? record_entry(&rec, keep[i].algo) : NULL;
        if (e != NULL && e->status == CUDNN_STATUS_SUCCESS && e->memory == keep[i].memory) {
            keep[i].status = CUDNN_STATUS_SUCCESS, keep[i].time = e->time;
            merged = 1;
        }
    }
    if (merged)
        sort_by_time(keep, n);
    rec.count = n;
    for (int i = 0; i < n; i++)
        rec.e[i] = (fd_tune_entry_t){keep[i].algo, keep[i].status, keep[i].time, keep[i].memory,
                                     keep[i].determinism, keep[i].mathType};
    fd_tunecache_store(handle, p, &rec);
}

/* A Find answered by the tuning cache: 1 when the stored ranking of p serves a workspace of ws
 * bytes (every algorithm it could not time for lack of workspace still does not fit) and agrees
 * with the implementation table (same algorithms supported, same workspace sizes). all[] then
 * holds what find_timed would return: entries over ws marked ALLOC_FAILED, sorted. */
static int find_cached(cudnnHandle_t handle, const fd_conv_problem_t *p, size_t ws, fd_perf_t *all,
                       int *count)
{
    fd_tune_record_t rec;
    if (!fd_tunecache_lookup(handle, p, FD_TUNE_FOR_FIND, &rec))
        return 0;
    const fd_conv_impl_t *impls[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int n = rank_all(handle, p, all, impls);
    for (int i = 0; i < n; i++) {
        const fd_tune_entry_t *e = record_entry(&rec, all[i].algo);
        if (e == NULL)
            return 0;
        int ran = e->status == CUDNN_STATUS_SUCCESS || e->status == CUDNN_STATUS_ALLOC_FAILED;
        if (all[i].status != CUDNN_STATUS_SUCCESS) {
            if (ran)
                return 0; /* stale: an implementation is gone */
            continue;
        }
        if (ran && e->memory != all[i].memory)
            return 0; /* stale: the workspace changed */
        if (all[i].memory > ws) {
            all[i].status = CUDNN_STATUS_ALLOC_FAILED;
            continue;
        }
        if (e->status == CUDNN_STATUS_ALLOC_FAILED)
            return 0; /* fits this workspace but was never timed */
        all[i].status = e->status, all[i].time = e->time;
    }
    /* A search with this workspace would time the fallback rows (find_timed) */
    int timed = 0, untimed = 0;
    for (int i = 0; i < n; i++) {
        timed += sort_class(&all[i]) == 0;
        untimed += sort_class(&all[i]) == 1;
    }
    if (timed == 0 && untimed > 0)
        return 0;
    sort_by_time(all, n);
    *count = n;
    return 1;
}

/* Find*Ex answered by the cache still leaves a correct result in its output, as a timed search
 * does: the best algorithm runs once (a timed search leaves the last one run's). */
static cudnnStatus_t run_best(cudnnHandle_t handle, const fd_conv_problem_t *p,
                              const fd_conv_args_t *args, const fd_perf_t *all, int n)
{
    for (int i = 0; i < n; i++) {
        if (all[i].status != CUDNN_STATUS_SUCCESS)
            continue;
        char why[512];
        const fd_conv_impl_t *impl =
            fd_conv_select(p, handle->backend, all[i].algo, why, sizeof why);
        return impl != NULL ? impl->run(p, args) : CUDNN_STATUS_NOT_SUPPORTED;
    }
    return CUDNN_STATUS_SUCCESS;
}

/* One timed call of Find (fd_backend_time's callback). */
typedef struct {
    const fd_conv_impl_t *impl;
    const fd_conv_problem_t *p;
    const fd_conv_args_t *args;
} find_call_t;

static cudnnStatus_t find_call_run(void *ctx)
{
    const find_call_t *c = ctx;
    return c->impl->run(c->p, c->args);
}

/* Multiply-adds times 2 of one call, as dnnbench's GFLOP column counts them. */
static double conv_flop(const fd_conv_problem_t *p)
{
    double f = 2.0 * (double)p->n * (double)p->k * (double)(p->c / p->groups);
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
        f *= (double)p->out[d] * (double)p->flt[d];
    return f;
}

/* Find on cpu times the algorithms only the ref rows serve (the fallback) only on problems of
 * at most this many FLOP: the ref oracle runs at about 0.45 GFLOP/s (one thread, Zen 4,
 * 2026-11-30), so this bounds its one timed run to about 10 ms. Above it the ref row is
 * 30-200x slower than any cpu row (cpu rows reach 15-90 GFLOP/s there), and timing it cost
 * minutes per call on DeepBench's speech layers (tens of GFLOP). */
#define FIND_FALLBACK_MAX_FLOP 4e6

/* Calls per algorithm of a Find on the cpu backend (see find_timed): FIND_CPU_REPS, or
 * FIND_CPU_REPS_LONG where one round over the algorithms took more than FIND_CPU_LONG_MS. On
 * the shared 2-vCPU VM three rounds still ranked OpenBLAS's GEMM rows first on ResNet-50's 7x7
 * 1x1 layers that the direct row runs 20-30% faster (2026-12-04); five did not. */
#define FIND_CPU_REPS 5
#define FIND_CPU_REPS_LONG 3
#define FIND_CPU_LONG_MS 200.0

/* Times each supported algorithm into args->out (an implementation serving several
 * algorithms is timed once; fd_backend_time: on cuda a warm-up run and the median of
 * FD_FIND_REPS runs between events), then sorts by time, unsupported last.
 *
 * The exception, on cpu: an algorithm served only by a fallback row (cpu -> ref) is not timed
 * when the problem is above FIND_FALLBACK_MAX_FLOP and some cpu row's algorithm fits the
 * workspace (so something is timed). It is reported after the timed algorithms with status
 * SUCCESS (it can run: Get*WorkspaceSize and the compute call accept it) and time -1, the
 * value Get*Algorithm_v7 and cuDNN's Find use for "no measurement" (cuDNN 9.19 reports the
 * algorithms it cannot run with time -1). A measured time is not invented, and SUCCESS is
 * kept so a caller asking for the list sees every algorithm that runs. The tuning cache stores
 * these entries as they are (time -1); Get*Algorithm_v7 ranks them after the timed ones. */
static cudnnStatus_t find_timed(cudnnHandle_t handle, const fd_conv_problem_t *p, fd_conv_args_t *args,
                                int requested, int *returned, void *perf_results)
{
    FD_CHECK(returned != NULL, CUDNN_STATUS_BAD_PARAM, "returnedAlgoCount is NULL");
    FD_CHECK(perf_results != NULL, CUDNN_STATUS_BAD_PARAM, "perfResults is NULL");
    FD_CHECK(requested >= 1, CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount is %d; it must be at least 1",
             requested);
    fd_perf_t all[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    const fd_conv_impl_t *impls[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int n = rank_all(handle, p, all, impls);
    int skip_fallback = 0;
    if (handle->backend == FD_BACKEND_CPU && conv_flop(p) > FIND_FALLBACK_MAX_FLOP)
        for (int i = 0; i < n; i++)
            skip_fallback |= all[i].status == CUDNN_STATUS_SUCCESS &&
                             impls[i]->backend == FD_BACKEND_CPU &&
                             all[i].memory <= args->workspace_size;
    int timed_here[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {0};
    for (int i = 0; i < n; i++) {
        if (all[i].status != CUDNN_STATUS_SUCCESS)
            continue;
        int timed = -1;
        for (int j = 0; j < i; j++)
            if (impls[j] == impls[i] && all[j].status == CUDNN_STATUS_SUCCESS)
                timed = j;
        if (timed >= 0) {
            all[i].time = all[timed].time;
            continue;
        }
        if (all[i].memory > args->workspace_size) {
            all[i].status = CUDNN_STATUS_ALLOC_FAILED; /* cuDNN's word for a short workspace here */
            continue;
        }
        if (skip_fallback && impls[i]->backend != handle->backend)
            continue; /* SUCCESS, time -1 (rank_all's): see above */
        find_call_t call = {impls[i], p, args};
        all[i].status = fd_backend_time(handle, find_call_run, &call, &all[i].time);
        timed_here[i] = all[i].status == CUDNN_STATUS_SUCCESS;
    }
    /* On the host one call is one sample: the first algorithm timed also paid the one-time
     * costs (OpenMP's and OpenBLAS's thread start, the inputs' first trip into the caches),
     * which ranked the heuristic's choice (timed first) behind a slower algorithm (conv1 of
     * ResNet-50: direct 2.6 ms measured as 3.9 ms); each algorithm's time is the least of
     * FIND_CPU_REPS calls, taken in rounds over the algorithms, so a spell of interference
     * from outside (a shared VM's memory system: the same call 3.9 or 6.5 ms from one second
     * to the next) falls on every candidate alike, not on the one timed during it. cuda's
     * fd_backend_time warms up and takes a median itself; on ref one row serves every
     * algorithm, so there is no ranking to protect. */
    double round_ms = 0.0; /* the first round's time: long rounds get FIND_CPU_REPS_LONG */
    for (int i = 0; i < n; i++)
        round_ms += timed_here[i] ? all[i].time : 0.0;
    const int reps = round_ms > FIND_CPU_LONG_MS ? FIND_CPU_REPS_LONG : FIND_CPU_REPS;
    for (int r = 1; r < reps && handle->backend == FD_BACKEND_CPU; r++)
        for (int i = 0; i < n; i++) {
            if (!timed_here[i] || all[i].status != CUDNN_STATUS_SUCCESS)
                continue;
            find_call_t call = {impls[i], p, args};
            float t = 0.0f;
            all[i].status = fd_backend_time(handle, find_call_run, &call, &t);
            all[i].time = t < all[i].time ? t : all[i].time;
        }
    for (int i = 0; i < n; i++) /* algorithms served by an implementation timed above */
        for (int j = 0; j < i; j++)
            if (!timed_here[i] && impls[j] == impls[i] && all[j].status == CUDNN_STATUS_SUCCESS &&
                all[i].status == CUDNN_STATUS_SUCCESS)
                all[i].time = all[j].time;
    sort_by_time(all, n);
    remember(handle, p, all, n);
    fd_tunecache_note(handle, FD_TUNE_FIND_MISS);
    return find_return(all, n, requested, returned, perf_results);
}

/* Find without caller buffers: scratch tensors and the largest workspace, freed after. */
static cudnnStatus_t find_scratch(cudnnHandle_t handle, const fd_conv_problem_t *p,
                                  size_t x_bytes, size_t w_bytes, size_t y_bytes, int requested,
                                  int *returned, void *perf_results)
{
    fd_perf_t cached[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int ncached;
    if (find_cached(handle, p, (size_t)-1, cached, &ncached)) { /* no scratch needed */
        fd_tunecache_note(handle, FD_TUNE_FIND_HIT);
        return find_return(cached, ncached, requested, returned, perf_results);
    }
    fd_perf_t all[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    const fd_conv_impl_t *impls[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int n = rank_all(handle, p, all, impls);
    size_t ws = 0;
    for (int i = 0; i < n; i++)
        if (all[i].status == CUDNN_STATUS_SUCCESS && all[i].memory > ws)
            ws = all[i].memory;
    /* zeroed, where the handle's data lives (device memory on cuda) */
    void *x = NULL, *w = NULL, *y = NULL, *work = NULL;
    cudnnStatus_t st = fd_backend_alloc(handle, x_bytes, &x);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fd_backend_alloc(handle, w_bytes, &w);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fd_backend_alloc(handle, y_bytes, &y);
    if (st == CUDNN_STATUS_SUCCESS)
        st = fd_backend_alloc(handle, ws, &work);
    if (st != CUDNN_STATUS_SUCCESS)
        goto cleanup;
    fd_conv_args_t a = {handle, x, w, y, NULL, 1.0, 0.0, work, ws, NULL};
    a.out = p->dir == FD_CONV_FWD ? y : p->dir == FD_CONV_BWD_DATA ? x : w;
    if (p->dir == FD_CONV_FWD)
        a.y = NULL;
    else if (p->dir == FD_CONV_BWD_DATA)
        a.x = NULL;
    else
        a.w = NULL;
    st = find_timed(handle, p, &a, requested, returned, perf_results);
cleanup:
    fd_backend_free(handle, x), fd_backend_free(handle, w), fd_backend_free(handle, y);
    fd_backend_free(handle, work);
    return st;
}

/* Find without caller buffers, shared by the three directions. */
static cudnnStatus_t find_plain(cudnnHandle_t handle, fd_conv_dir_t dir, cudnnTensorDescriptor_t xDesc,
                                cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                                cudnnTensorDescriptor_t yDesc, int requested, int *returned, void *perf)
{
    FD_TRY(fd_handle_check(handle));
    fd_conv_problem_t p;
    FD_TRY(fd_conv_problem_init(&p, dir, xDesc, wDesc, convDesc, yDesc));
    FD_CHECK(returned != NULL, CUDNN_STATUS_BAD_PARAM, "returnedAlgoCount is NULL");
    FD_CHECK(perf != NULL, CUDNN_STATUS_BAD_PARAM, "perfResults is NULL");
    FD_CHECK(requested >= 1, CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount is %d", requested);
    return find_scratch(handle, &p, tensor_bytes(xDesc), filter_bytes(wDesc), tensor_bytes(yDesc),
                        requested, returned, perf);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t handle,
                                                               const cudnnTensorDescriptor_t xDesc,
                                                               const cudnnFilterDescriptor_t wDesc,
                                                               const cudnnConvolutionDescriptor_t convDesc,
                                                               const cudnnTensorDescriptor_t yDesc,
                                                               const int requestedAlgoCount,
                                                               int *returnedAlgoCount,
                                                               cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    FD_API(handle);
    return find_plain(handle, FD_CONV_FWD, xDesc, wDesc, convDesc, yDesc, requestedAlgoCount,
                      returnedAlgoCount, perfResults);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t handle,
                                                                    const cudnnFilterDescriptor_t wDesc,
                                                                    const cudnnTensorDescriptor_t dyDesc,
                                                                    const cudnnConvolutionDescriptor_t convDesc,
                                                                    const cudnnTensorDescriptor_t dxDesc,
                                                                    const int requestedAlgoCount,
                                                                    int *returnedAlgoCount,
                                                                    cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    FD_API(handle);
    return find_plain(handle, FD_CONV_BWD_DATA, dxDesc, wDesc, convDesc, dyDesc, requestedAlgoCount,
                      returnedAlgoCount, perfResults);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t handle,
                                                                      const cudnnTensorDescriptor_t xDesc,
                                                                      const cudnnTensorDescriptor_t dyDesc,
                                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                                      const cudnnFilterDescriptor_t dwDesc,
                                                                      const int requestedAlgoCount,
                                                                      int *returnedAlgoCount,
                                                                      cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    FD_API(handle);
    return find_plain(handle, FD_CONV_BWD_FILTER, xDesc, dwDesc, convDesc, dyDesc, requestedAlgoCount,
                      returnedAlgoCount, perfResults);
}

/* Find*Ex, shared by the three directions: x, w and y are the data of the x-, w- and y-shaped
 * tensors; the direction's output among them is overwritten by the timing runs. */
static cudnnStatus_t find_ex(cudnnHandle_t handle, fd_conv_dir_t dir, cudnnTensorDescriptor_t xDesc,
                             const void *x, cudnnFilterDescriptor_t wDesc, const void *w,
                             cudnnConvolutionDescriptor_t convDesc, cudnnTensorDescriptor_t yDesc,
                             const void *y, int requested, int *returned, void *perf, void *workSpace,
                             size_t workSpaceSizeInBytes)
{
    static const char *const names[FD_CONV_DIR_COUNT][3] = {{"x", "w", "y"}, {"dx", "w", "dy"}, {"x", "dw", "dy"}};
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(x && w && y, CUDNN_STATUS_BAD_PARAM, "%s, %s or %s is NULL", names[dir][0], names[dir][1],
             names[dir][2]);
    FD_CHECK(workSpace != NULL || workSpaceSizeInBytes == 0, CUDNN_STATUS_BAD_PARAM,
             "workSpace is NULL but workSpaceSizeInBytes is %zu", workSpaceSizeInBytes);
    fd_conv_problem_t p;
    FD_TRY(fd_conv_problem_init(&p, dir, xDesc, wDesc, convDesc, yDesc));
    const void *const ptr[3] = {x, w, y};
    const size_t bytes[3] = {tensor_bytes(xDesc), filter_bytes(wDesc), tensor_bytes(yDesc)};
    FD_TRY(check_not_in_place(dir, ptr, bytes));
    fd_conv_args_t a = {handle, x, w, y, NULL, 1.0, 0.0, workSpace, workSpaceSizeInBytes, NULL};
    if (dir == FD_CONV_FWD)
        a.out = (void *)y, a.y = NULL;
    else if (dir == FD_CONV_BWD_DATA)
        a.out = (void *)x, a.x = NULL;
    else
        a.out = (void *)w, a.w = NULL;
    FD_CHECK(returned != NULL, CUDNN_STATUS_BAD_PARAM, "returnedAlgoCount is NULL");
    FD_CHECK(perf != NULL, CUDNN_STATUS_BAD_PARAM, "perfResults is NULL");
    FD_CHECK(requested >= 1, CUDNN_STATUS_BAD_PARAM,
             "requestedAlgoCount is %d; it must be at least 1", requested);
    fd_perf_t cached[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int ncached;
    if (find_cached(handle, &p, workSpaceSizeInBytes, cached, &ncached) &&
        run_best(handle, &p, &a, cached, ncached) == CUDNN_STATUS_SUCCESS) {
        fd_tunecache_note(handle, FD_TUNE_FIND_HIT);
        return find_return(cached, ncached, requested, returned, perf);
    }
    return find_timed(handle, &p, &a, requested, returned, perf);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t handle,
                                                                 const cudnnTensorDescriptor_t xDesc, const void *x,
                                                                 const cudnnFilterDescriptor_t wDesc, const void *w,
                                                                 const cudnnConvolutionDescriptor_t convDesc,
                                                                 const cudnnTensorDescriptor_t yDesc, void *y,
                                                                 const int requestedAlgoCount,
                                                                 int *returnedAlgoCount,
                                                                 cudnnConvolutionFwdAlgoPerf_t *perfResults,
                                                                 void *workSpace, size_t workSpaceSizeInBytes)
{
    FD_API(handle);
    return find_ex(handle, FD_CONV_FWD, xDesc, x, wDesc, w, convDesc, yDesc, y, requestedAlgoCount,
                   returnedAlgoCount, perfResults, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t handle,
                                                                      const cudnnFilterDescriptor_t wDesc, const void *w,
                                                                      const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                                      const cudnnTensorDescriptor_t dxDesc, void *dx,
                                                                      const int requestedAlgoCount,
                                                                      int *returnedAlgoCount,
                                                                      cudnnConvolutionBwdDataAlgoPerf_t *perfResults,
                                                                      void *workSpace, size_t workSpaceSizeInBytes)
{
    FD_API(handle);
    return find_ex(handle, FD_CONV_BWD_DATA, dxDesc, dx, wDesc, w, convDesc, dyDesc, dy, requestedAlgoCount,
                   returnedAlgoCount, perfResults, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnnHandle_t handle,
                                                                        const cudnnTensorDescriptor_t xDesc, const void *x,
                                                                        const cudnnTensorDescriptor_t dyDesc, const void *y,
                                                                        const cudnnConvolutionDescriptor_t convDesc,
                                                                        const cudnnFilterDescriptor_t dwDesc, void *dw,
                                                                        const int requestedAlgoCount,
                                                                        int *returnedAlgoCount,
                                                                        cudnnConvolutionBwdFilterAlgoPerf_t *perfResults,
                                                                        void *workSpace, size_t workSpaceSizeInBytes)
{
    FD_API(handle);
    return find_ex(handle, FD_CONV_BWD_FILTER, xDesc, x, dwDesc, dw, convDesc, dyDesc, y, requestedAlgoCount,
                   returnedAlgoCount, perfResults, workSpace, workSpaceSizeInBytes);
}
