/* SPDX-License-Identifier: MIT */
/*
 * algorithm.c - cuDNN 7's algorithm descriptors, performance records and their save/restore
 * (removed from cuDNN 9; served through the v7 API surface).
 *
 * An algorithm descriptor holds one cudnnAlgorithm_t (a union of the algorithm enums; which
 * member counts depends on the operation it is used with). A performance record holds the
 * descriptor handle it was given (the caller keeps that descriptor alive), a status, a time
 * in milliseconds and a workspace size. Saved algorithms are a small self-checking record:
 * magic "FDALGO01", the library version, the 4-byte algorithm, and an FNV-1a checksum;
 * restoring a buffer that is short, foreign or damaged is BAD_PARAM and leaves the descriptor
 * unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/fd.h"

#define FD_MAGIC_ALGO 0x4c414446u
#define FD_MAGIC_ALGO_PERF 0x50414446u

struct cudnnAlgorithmStruct {
    uint32_t magic;
    int is_set;
    cudnnAlgorithm_t algo;
};

struct cudnnAlgorithmPerformanceStruct {
    uint32_t magic;
    int is_set;
    cudnnAlgorithmDescriptor_t desc;
    cudnnStatus_t status;
    float time;
    size_t memory;
};

/* Serialised form written by cudnnSaveAlgorithm. */
typedef struct {
    char magic[8]; /* "FDALGO01" */
    uint64_t library_version;
    int32_t algorithm;
    uint32_t reserved;
    uint64_t checksum; /* FNV-1a of the bytes before it */
} fd_saved_algo_t;
_Static_assert(sizeof(cudnnAlgorithm_t) == sizeof(int32_t), "cudnnAlgorithm_t is one enum wide");

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static cudnnStatus_t algo_live(cudnnAlgorithmDescriptor_t d, const char *name)
{
    FD_CHECK(d != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(d->magic == FD_MAGIC_ALGO, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live algorithm descriptor", name, (void *)d);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t algo_set(cudnnAlgorithmDescriptor_t d, const char *name)
{
    FD_TRY(algo_live(d, name));
    FD_CHECK(d->is_set, CUDNN_STATUS_BAD_PARAM,
             "%s was created but never set (call cudnnSetAlgorithmDescriptor first)", name);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t perf_live(cudnnAlgorithmPerformance_t p, const char *name)
{
    FD_CHECK(p != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(p->magic == FD_MAGIC_ALGO_PERF, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live algorithm performance record", name, (void *)p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnCreateAlgorithmDescriptor(cudnnAlgorithmDescriptor_t *algoDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(algoDesc);
    struct cudnnAlgorithmStruct *d = calloc(1, sizeof *d);
    FD_CHECK(d != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate an algorithm descriptor (%zu bytes)", sizeof *d);
    d->magic = FD_MAGIC_ALGO;
    *algoDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algoDesc,
                                                      cudnnAlgorithm_t algorithm)
{
    FD_API(NULL);
    FD_TRY(algo_live(algoDesc, "algoDesc"));
    FD_CHECK((int)algorithm.algo.convFwdAlgo >= 0, CUDNN_STATUS_BAD_PARAM,
             "algorithm %d is negative; no algorithm enum has negative values",
             (int)algorithm.algo.convFwdAlgo);
    algoDesc->algo = algorithm;
    algoDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t algoDesc,
                                                      cudnnAlgorithm_t *algorithm)
{
    FD_API(NULL);
    FD_TRY(algo_set(algoDesc, "algoDesc"));
    FD_CHECK_NOT_NULL(algorithm);
    *algorithm = algoDesc->algo;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnCopyAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t src,
                                                       cudnnAlgorithmDescriptor_t dest)
{
    FD_API(NULL);
    FD_TRY(algo_set(src, "src"));
    FD_TRY(algo_live(dest, "dest"));
    dest->algo = src->algo;
    dest->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algoDesc)
{
    FD_API(NULL);
    if (algoDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(algo_live(algoDesc, "algoDesc"));
    algoDesc->magic = 0;
    free(algoDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnCreateAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf,
                                                          int numberToCreate)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(algoPerf);
    FD_CHECK(numberToCreate >= 1, CUDNN_STATUS_BAD_PARAM, "numberToCreate is %d; at least 1",
             numberToCreate);
    for (int i = 0; i < numberToCreate; i++) {
        struct cudnnAlgorithmPerformanceStruct *p = calloc(1, sizeof *p);
        if (p == NULL) { /* nothing half-made survives a failure */
            for (int j = 0; j < i; j++) {
                free(algoPerf[j]);
                algoPerf[j] = NULL;
            }
            return fd_error(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, __FILE__, __LINE__,
                            "cannot allocate performance record %d of %d", i, numberToCreate);
        }
        p->magic = FD_MAGIC_ALGO_PERF;
        algoPerf[i] = p;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetAlgorithmPerformance(cudnnAlgorithmPerformance_t algoPerf,
                                                       cudnnAlgorithmDescriptor_t algoDesc,
                                                       cudnnStatus_t status, float time,
                                                       size_t memory)
{
    FD_API(NULL);
    FD_TRY(perf_live(algoPerf, "algoPerf"));
    FD_TRY(algo_live(algoDesc, "algoDesc"));
    algoPerf->desc = algoDesc;
    algoPerf->status = status;
    algoPerf->time = time;
    algoPerf->memory = memory;
    algoPerf->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmPerformance(const cudnnAlgorithmPerformance_t algoPerf,
                                                       cudnnAlgorithmDescriptor_t *algoDesc,
                                                       cudnnStatus_t *status, float *time,
                                                       size_t *memory)
{
    FD_API(NULL);
    FD_TRY(perf_live(algoPerf, "algoPerf"));
    FD_CHECK(algoPerf->is_set, CUDNN_STATUS_BAD_PARAM,
             "algoPerf was created but never set (call cudnnSetAlgorithmPerformance first)");
    FD_CHECK_NOT_NULL(algoDesc);
    FD_CHECK_NOT_NULL(status);
    FD_CHECK_NOT_NULL(time);
    FD_CHECK_NOT_NULL(memory);
    *algoDesc = algoPerf->desc;
    *status = algoPerf->status;
    *time = algoPerf->time;
    *memory = algoPerf->memory;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf,
                                                           int numberToDestroy)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(algoPerf);
    FD_CHECK(numberToDestroy >= 0, CUDNN_STATUS_BAD_PARAM, "numberToDestroy is %d", numberToDestroy);
    for (int i = 0; i < numberToDestroy; i++) /* validate all before freeing any */
        FD_CHECK(algoPerf[i] == NULL || algoPerf[i]->magic == FD_MAGIC_ALGO_PERF,
                 CUDNN_STATUS_BAD_PARAM, "algoPerf[%d] (%p) is not a live performance record", i,
                 (void *)algoPerf[i]);
    for (int i = 0; i < numberToDestroy; i++) {
        if (algoPerf[i] != NULL) {
            algoPerf[i]->magic = 0;
            free(algoPerf[i]);
        }
        algoPerf[i] = NULL;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmSpaceSize(cudnnHandle_t handle,
                                                     cudnnAlgorithmDescriptor_t algoDesc,
                                                     size_t *algoSpaceSizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(algo_set(algoDesc, "algoDesc"));
    FD_CHECK_NOT_NULL(algoSpaceSizeInBytes);
    *algoSpaceSizeInBytes = sizeof(fd_saved_algo_t);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSaveAlgorithm(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc,
                                             void *algoSpace, size_t algoSpaceSizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(algo_set(algoDesc, "algoDesc"));
    FD_CHECK_NOT_NULL(algoSpace);
    FD_CHECK(algoSpaceSizeInBytes >= sizeof(fd_saved_algo_t), CUDNN_STATUS_BAD_PARAM,
             "algoSpaceSizeInBytes is %zu; cudnnGetAlgorithmSpaceSize asks for %zu",
             algoSpaceSizeInBytes, sizeof(fd_saved_algo_t));
    fd_saved_algo_t s;
    memset(&s, 0, sizeof s);
    memcpy(s.magic, "FDALGO01", 8);
    s.library_version = FREEDNN_VERSION;
    memcpy(&s.algorithm, &algoDesc->algo, sizeof s.algorithm);
    s.checksum = fnv1a(&s, offsetof(fd_saved_algo_t, checksum));
    memcpy(algoSpace, &s, sizeof s);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnRestoreAlgorithm(cudnnHandle_t handle, void *algoSpace,
                                                size_t algoSpaceSizeInBytes,
                                                cudnnAlgorithmDescriptor_t algoDesc)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(algoSpace);
    FD_TRY(algo_live(algoDesc, "algoDesc"));
    FD_CHECK(algoSpaceSizeInBytes >= sizeof(fd_saved_algo_t), CUDNN_STATUS_BAD_PARAM,
             "algoSpaceSizeInBytes is %zu; a saved algorithm is %zu bytes", algoSpaceSizeInBytes,
             sizeof(fd_saved_algo_t));
    fd_saved_algo_t s;
    memcpy(&s, algoSpace, sizeof s);
    FD_CHECK(memcmp(s.magic, "FDALGO01", 8) == 0, CUDNN_STATUS_BAD_PARAM,
             "algoSpace does not hold an algorithm saved by freednn (bad magic)");
    FD_CHECK(s.checksum == fnv1a(&s, offsetof(fd_saved_algo_t, checksum)), CUDNN_STATUS_BAD_PARAM,
             "algoSpace is damaged (checksum mismatch)");
    FD_CHECK(s.library_version == FREEDNN_VERSION, CUDNN_STATUS_BAD_PARAM,
             "algoSpace was saved by freednn %llu; this is %d",
             (unsigned long long)s.library_version, FREEDNN_VERSION);
    memcpy(&algoDesc->algo, &s.algorithm, sizeof s.algorithm);
    algoDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}
