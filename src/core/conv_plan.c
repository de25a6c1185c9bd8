/* SPDX-License-Identifier: MIT */
/*
 * conv_plan.c - a handle's plans: what a convolution compute call derives from its descriptors
 * (the checked problem, the implementation of the algorithm, its workspace size, the byte spans
 * of the overlap check), remembered so that the next call on the same descriptors goes straight
 * to the run (issue 7 item 3: a call with a cached plan costs at most 5 us of host time).
 *
 * The key is the descriptors' bytes, not their addresses: a plan matches while each of the four
 * descriptors holds what it held when the plan was made (any cudnnSet* that changes one, or
 * cudnnDestroy*, which clears the magic, makes the call miss and take the checked path again).
 * The problem itself depends on nothing else: the handle fixes the backend and the device, and
 * the switches that rows read from the environment are read once per process.
 *
 * A handle is used by one thread at a time (cuDNN's rule), so the cache takes no lock. Each plan
 * carries FD_CONV_PLAN_STATE bytes for its implementation (fd_conv_args_t.state).
 */
#include <stdlib.h>
#include <string.h>

#include "conv.h"

#define FD_CONV_PLANS 16

typedef struct {
    int used;
    fd_conv_dir_t dir;
    int algo;
    unsigned long long last; /* the cache's clock at the last use */
    struct cudnnTensorStruct x, y;
    struct cudnnFilterStruct w;
    struct cudnnConvolutionStruct c;
} plan_key_t;

struct fd_conv_plans {
    fd_conv_plan_t plan[FD_CONV_PLANS]; /* first: the states keep their 64-byte alignment */
    plan_key_t key[FD_CONV_PLANS];
    unsigned long long clock;
    int recent; /* the plan the last call used: looked at first */
};

cudnnStatus_t fd_conv_plans_create(cudnnHandle_t h)
{
    const size_t bytes = (sizeof(struct fd_conv_plans) + 63) / 64 * 64;
    struct fd_conv_plans *c = aligned_alloc(64, bytes);
    FD_CHECK(c != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate %zu bytes for the handle's convolution plans", bytes);
    memset(c, 0, bytes);
    h->plans = c;
    return CUDNN_STATUS_SUCCESS;
}

void fd_conv_plans_free(cudnnHandle_t h)
{
    free(h->plans);
    h->plans = NULL;
}

static int key_matches(const plan_key_t *k, fd_conv_dir_t dir, int algo, cudnnTensorDescriptor_t x,
                       cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t y)
{
    return k->used && k->dir == dir && k->algo == algo && memcmp(&k->x, x, sizeof k->x) == 0 &&
           memcmp(&k->y, y, sizeof k->y) == 0 && memcmp(&k->w, w, sizeof k->w) == 0 &&
           memcmp(&k->c, c, sizeof k->c) == 0;
}

fd_conv_plan_t *fd_conv_plan_find(cudnnHandle_t h, fd_conv_dir_t dir, int algo, cudnnTensorDescriptor_t x,
                                  cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c,
                                  cudnnTensorDescriptor_t y)
{
    struct fd_conv_plans *pc = h->plans;
    if (pc == NULL || x == NULL || w == NULL || c == NULL || y == NULL)
        return NULL;
    int hit = -1;
    if (key_matches(&pc->key[pc->recent], dir, algo, x, w, c, y)) {
        hit = pc->recent;
    } else {
        for (int i = 0; i < FD_CONV_PLANS && hit < 0; i++)
            if (key_matches(&pc->key[i], dir, algo, x, w, c, y))
                hit = i;
        if (hit < 0)
            return NULL;
        pc->recent = hit;
    }
    pc->key[hit].last = ++pc->clock;
    return &pc->plan[hit];
}

fd_conv_plan_t *fd_conv_plan_store(cudnnHandle_t h, fd_conv_dir_t dir, int algo, cudnnTensorDescriptor_t x,
                                   cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c,
                                   cudnnTensorDescriptor_t y, const fd_conv_problem_t *p,
                                   const struct fd_conv_impl *impl, size_t need)
{
    struct fd_conv_plans *pc = h->plans;
    if (pc == NULL)
        return NULL;
    int slot = 0;
    for (int i = 1; i < FD_CONV_PLANS; i++)
        if (!pc->key[i].used ? pc->key[slot].used : pc->key[slot].used && pc->key[i].last < pc->key[slot].last)
            slot = i;
    plan_key_t *k = &pc->key[slot];
    fd_conv_plan_t *pl = &pc->plan[slot];
    k->used = 1, k->dir = dir, k->algo = algo, k->last = ++pc->clock;
    memcpy(&k->x, x, sizeof k->x);
    memcpy(&k->y, y, sizeof k->y);
    memcpy(&k->w, w, sizeof k->w);
    memcpy(&k->c, c, sizeof k->c);
    memset(pl, 0, sizeof *pl);
    pl->p = *p;
    pl->impl = impl;
    pl->need = need;
    pc->recent = slot;
    return pl;
}
