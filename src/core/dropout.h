/* SPDX-License-Identifier: MIT */
/*
 * dropout.h - the dropout descriptor, the states buffer and the flat dropout problem.
 *
 * The mask is a pure function of (seed, call counter, element index) through Philox4x32-10,
 * so every backend draws the same mask bit for bit (docs/dropout.md):
 *   block = i / 4, lane = i % 4
 *   r = Philox4x32-10(counter = {block lo, block hi, call lo, call hi}, key = {seed lo, seed
 * hi})[lane] element i is dropped iff r < threshold, threshold = floor(p * 2^32) (2^32 for p = 1)
 * i is the element's canonical index: row-major over x's dims, whatever the strides.
 * The states buffer (FD_DROPOUT_STATES_SIZE bytes, in backend memory) holds the seed and the
 * call counter; every forward call uses the counter and then increments it.
 */
#ifndef FD_CORE_DROPOUT_H_
#define FD_CORE_DROPOUT_H_

#include "fd.h"

#define FD_MAGIC_DROPOUT 0x50524446u /* "FDRP" */

/* States buffer: four little-endian uint64 words, then zeros. */
#define FD_DROPOUT_STATES_SIZE 64
#define FD_DROPOUT_STATES_MAGIC 0x5453504f52444446ull /* bytes "FDDROPST" */
enum {
    FD_DROPOUT_WORD_MAGIC,
    FD_DROPOUT_WORD_SEED,
    FD_DROPOUT_WORD_CALLS,
    FD_DROPOUT_WORD_VERSION
};
#define FD_DROPOUT_STATES_VERSION 1u

struct cudnnDropoutStruct {
    uint32_t magic;
    float p;
    void *states; /* NULL until set with states */
    size_t states_size;
    unsigned long long seed; /* as given to Set/Restore (reported by Get) */
};

cudnnStatus_t fd_dropout_desc_check(cudnnDropoutDescriptor_t desc, const char *name);

/* Philox4x32-10 (Salmon et al., SC'11; Random123's reference round and key schedule). */
void fd_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
/* floor(p * 2^32) as the drop threshold (p in [0, 1]). */
uint64_t fd_dropout_threshold(float p);
/* 1 when element i is kept by the call-th forward call of a generator seeded with seed. */
int fd_dropout_keep(uint64_t seed, uint64_t call, uint64_t i, uint64_t threshold);
/* States in host memory (the ref and cpu rows; src/ref/dropout_ref.c): checks the header and
 * reads the seed and the number of forward calls so far; BAD_PARAM with the reason when
 * cudnnSetDropoutDescriptor did not write it. After a forward call, the count is set to call + 1. */
cudnnStatus_t fd_dropout_states_read(const void *states, uint64_t *seed, uint64_t *call);
void fd_dropout_states_set_calls(void *states, uint64_t calls);

typedef enum {
    FD_DROPOUT_INIT,    /* cudnnSetDropoutDescriptor: write the states header (no tensors) */
    FD_DROPOUT_FORWARD, /* draw a mask from the states, y = x * mask * scale, keep the mask */
    FD_DROPOUT_BACKWARD /* dx = dy * mask * scale with the kept mask */
} fd_dropout_kind_t;

/* Runs as FD_OP_DROPOUT_INIT (INIT), FD_OP_DROPOUT_FWD (FORWARD) or FD_OP_DROPOUT_BWD (BACKWARD). in/out are x/y
 * (forward) or dy/dx (backward): same element count and dtype, possibly different dims; the
 * element with canonical index i of one pairs with canonical index i of the other. */
typedef struct fd_dropout_problem {
    fd_dropout_kind_t kind;
    uint64_t threshold; /* drop iff r < threshold */
    double scale;       /* 1 / (1 - p) rounded to the data type's scalar type; 0 for p = 1 */
    int64_t count;      /* elements; the mask takes count bytes of reserve space */
    struct cudnnTensorStruct in, out;
} fd_dropout_problem_t;
typedef struct fd_dropout_args {
    void *states;  /* FD_DROPOUT_STATES_SIZE bytes (INIT writes, FORWARD reads and advances) */
    uint64_t seed; /* INIT only */
    const void *in;
    void *out;
    void *reserve; /* the mask: one byte per element, 1 kept, 0 dropped */
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_dropout_args_t;

#endif /* FD_CORE_DROPOUT_H_ */
