/* SPDX-License-Identifier: MIT */
/*
 * tunecache.h - tuning that lasts (DESIGN D5): the rankings cudnnFind* measured, kept per
 * handle and in a text file shared by every process of the user (docs/tuning.md).
 *
 * A record is keyed by device identity (backend + CPU model + cores/threads, or what the cuda
 * backend reports through fd_tunecache_cuda_identity), library version (FREEDNN_VERSION plus a
 * fingerprint of the implementation table) and fd_conv_problem_key. It holds the perf entries
 * of one Find, ranked. Nothing here ever fails a call: an unusable file is ignored with a
 * warning (fd_log_warning) and a location that cannot be read or written disables persistence.
 */
#ifndef FD_CORE_TUNECACHE_H_
#define FD_CORE_TUNECACHE_H_

#include "conv.h"

#define FD_TUNE_MAX_ALGOS 16 /* more than any direction's ALGO_COUNT */

/* One perf entry as cudnnConvolution*AlgoPerf_t holds it. status ALLOC_FAILED marks an
 * algorithm the Find could not time because the caller's workspace was too small. */
typedef struct fd_tune_entry {
    int algo;
    cudnnStatus_t status;
    float time; /* ms; -1 when not timed */
    size_t memory;
    cudnnDeterminism_t determinism;
    cudnnMathType_t math;
} fd_tune_entry_t;

typedef struct fd_tune_record {
    int count;
    fd_tune_entry_t e[FD_TUNE_MAX_ALGOS]; /* ranked: successes by time, then the rest */
} fd_tune_record_t;

typedef enum {
    FD_TUNE_FOR_FIND, /* a miss in the handle's table re-reads the file */
    FD_TUNE_FOR_GET,  /* the handle's table only (loaded from the file once): Get*_v7 stays cheap */
} fd_tune_use_t;

/* 1 and *rec when a Find ranking for p is known to the handle or the file. */
int fd_tunecache_lookup(cudnnHandle_t handle, const fd_conv_problem_t *p, fd_tune_use_t use,
                        fd_tune_record_t *rec);
/* Keeps rec for p in the handle and, when persistence is on, merges it into the file. */
void fd_tunecache_store(cudnnHandle_t handle, const fd_conv_problem_t *p,
                        const fd_tune_record_t *rec);

/* Counters printed at cudnnDestroy when FREEDNN_TUNE_CACHE_STATS=1. */
typedef enum {
    FD_TUNE_FIND_HIT,
    FD_TUNE_FIND_MISS,
    FD_TUNE_GET_HIT,
    FD_TUNE_STAT_COUNT
} fd_tune_stat_t;
void fd_tunecache_note(cudnnHandle_t handle, fd_tune_stat_t what);

/* Frees the handle's table (cudnnDestroy); prints the counters when asked. */
void fd_tunecache_free(cudnnHandle_t handle);

/* Hook for the cuda backend: writes the device identity (name, compute capability, ...) of the
 * handle's device and returns 1. The default (weak) returns 0, which keeps cuda results in the
 * handle only: a file record needs an identity that tells one GPU model from another. */
int fd_tunecache_cuda_identity(cudnnHandle_t handle, char *buf, size_t size);

#endif /* FD_CORE_TUNECACHE_H_ */
