/* SPDX-License-Identifier: MIT */
/*
 * dropout_ref.c - reference dropout: states initialisation, forward (draw a mask, keep it in
 * the reserve space, scale the kept elements) and backward (apply the kept mask).
 *
 * The generator is Philox4x32-10, keyed by the seed and counted by (element block, call), so
 * the mask depends only on (seed, call counter, canonical element index): every backend and
 * every layout of the same logical tensor get the same mask (docs/dropout.md). Dropped
 * elements are exactly +0 (a NaN input does not leak through); kept ones are x * scale rounded
 * once to the data type. FLOAT, DOUBLE, HALF, BFLOAT16; no workspace.
 */
#include <math.h>
#include <string.h>

#include "../core/dropout.h"

/* ---- the generator ------------------------------------------------------------------------ */

void fd_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n1 = (uint32_t)p1;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1, n3 = (uint32_t)p0;
        c0 = n0, c1 = n1, c2 = n2, c3 = n3;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

uint64_t fd_dropout_threshold(float p)
{
    if (!(p > 0.0f))
        return 0;
    if (p >= 1.0f)
        return (uint64_t)1 << 32;
    return (uint64_t)floor((double)p * 4294967296.0); /* exact: p has 24 significant bits */
}

int fd_dropout_keep(uint64_t seed, uint64_t call, uint64_t i, uint64_t threshold)
{
    uint64_t block = i / 4;
    uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)call,
                       (uint32_t)(call >> 32)};
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t r[4];
    fd_philox4x32_10(ctr, key, r);
    return (uint64_t)r[i % 4] >= threshold;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static uint64_t word_load(const void *states, int w)
{
    uint64_t v;
    memcpy(&v, (const unsigned char *)states + 8 * w, sizeof v);
    return v;
}

static void word_store(void *states, int w, uint64_t v)
{
    memcpy((unsigned char *)states + 8 * w, &v, sizeof v);
}

cudnnStatus_t fd_dropout_states_read(const void *states, uint64_t *seed, uint64_t *call)
{
    /* Host memory: the reference can afford to verify what a device backend cannot. */
    FD_CHECK(word_load(states, FD_DROPOUT_WORD_MAGIC) == FD_DROPOUT_STATES_MAGIC &&
                 word_load(states, FD_DROPOUT_WORD_VERSION) == FD_DROPOUT_STATES_VERSION,
             CUDNN_STATUS_BAD_PARAM,
             "the dropout states buffer %p was not initialised by cudnnSetDropoutDescriptor "
             "(header %016llx, version %llu)",
             states, (unsigned long long)word_load(states, FD_DROPOUT_WORD_MAGIC),
             (unsigned long long)word_load(states, FD_DROPOUT_WORD_VERSION));
    *seed = word_load(states, FD_DROPOUT_WORD_SEED);
    *call = word_load(states, FD_DROPOUT_WORD_CALLS);
    return CUDNN_STATUS_SUCCESS;
}

void fd_dropout_states_set_calls(void *states, uint64_t calls)
{
    word_store(states, FD_DROPOUT_WORD_CALLS, calls);
}

/* Element offset of canonical (row-major over the dims) index i. */
static int64_t offset_of(const struct cudnnTensorStruct *t, int64_t i)
{
    int64_t off = 0;
    for (int d = t->nb_dims - 1; d >= 0; d--) {
        off += (i % t->dim[d]) * t->stride[d];
        i /= t->dim[d];
    }
    return off;
}

/* ---- FD_OP_DROPOUT_FWD: initialisation and forward --------------------------------------- */

int fd_dropout_fwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_dropout_fwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_dropout_fwd_ref_run(const void *problem, const void *args)
{
    const fd_dropout_problem_t *p = problem;
    const fd_dropout_args_t *a = args;
    uint64_t seed, call;
    FD_TRY(fd_dropout_states_read(a->states, &seed, &call));
    unsigned char *mask = a->reserve;
    for (int64_t i = 0; i < p->count; i++) {
        int keep = fd_dropout_keep(seed, call, (uint64_t)i, p->threshold);
        int64_t xo = offset_of(&p->in, i), yo = offset_of(&p->out, i);
        double v = keep ? fd_load(p->in.dtype, a->in, xo) * p->scale : 0.0;
        fd_store(p->out.dtype, a->out, yo, v);
        mask[i] = (unsigned char)keep;
    }
    fd_dropout_states_set_calls(a->states, call + 1);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- FD_OP_DROPOUT_INIT ------------------------------------------------------------------- */

int fd_dropout_init_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_dropout_init_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_dropout_init_ref_run(const void *problem, const void *args)
{
    (void)problem;
    const fd_dropout_args_t *a = args;
    memset(a->states, 0, FD_DROPOUT_STATES_SIZE);
    word_store(a->states, FD_DROPOUT_WORD_MAGIC, FD_DROPOUT_STATES_MAGIC);
    word_store(a->states, FD_DROPOUT_WORD_SEED, a->seed);
    word_store(a->states, FD_DROPOUT_WORD_CALLS, 0);
    word_store(a->states, FD_DROPOUT_WORD_VERSION, FD_DROPOUT_STATES_VERSION);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- FD_OP_DROPOUT_BWD -------------------------------------------------------------------- */

int fd_dropout_bwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_dropout_bwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_dropout_bwd_ref_run(const void *problem, const void *args)
{
    const fd_dropout_problem_t *p = problem;
    const fd_dropout_args_t *a = args;
    const unsigned char *mask = a->reserve;
    for (int64_t i = 0; i < p->count; i++) {
        int64_t io = offset_of(&p->in, i), oo = offset_of(&p->out, i);
        double v = mask[i] ? fd_load(p->in.dtype, a->in, io) * p->scale : 0.0;
        fd_store(p->out.dtype, a->out, oo, v);
    }
    return CUDNN_STATUS_SUCCESS;
}
