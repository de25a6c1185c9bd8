/* SPDX-License-Identifier: MIT */
/*
 * test_conv_alias.c - convolution is never computed in place (contract §1.6: cuDNN 9.19 answers
 * NOT_SUPPORTED for y == x), and a rejected call writes nothing (contract §4.1.4).
 *
 * For every direction, the output is made to overlap each input - the same pointer, and an
 * output that starts in the middle of the input - and the call must return
 * CUDNN_STATUS_NOT_SUPPORTED with the shared buffer's bytes unchanged. The overlap of outputs
 * and inputs is the same hazard whichever input it is (the reference reads an input after it
 * has written outputs over it), so it is rejected for w as well as for x / dy.
 */
#include "conv_case.h"

typedef struct {
    const char *name;
    co_dir_t dir;
    int out_over; /* which tensor the output shares memory with: 0 = first input, 1 = second */
    int mid;      /* 1: the output starts in the middle of the input */
} alias_t;

static const alias_t aliases[] = {
    {"fwd y == x", CO_FWD, 0, 0},
    {"fwd y inside x", CO_FWD, 0, 1},
    {"fwd y == w", CO_FWD, 1, 0},
    {"fwd y inside w", CO_FWD, 1, 1},
    {"bwd_data dx == dy", CO_BWD_DATA, 0, 0},
    {"bwd_data dx inside dy", CO_BWD_DATA, 0, 1},
    {"bwd_data dx == w", CO_BWD_DATA, 1, 0},
    {"bwd_data dx inside w", CO_BWD_DATA, 1, 1},
    {"bwd_filter dw == x", CO_BWD_FILTER, 0, 0},
    {"bwd_filter dw inside x", CO_BWD_FILTER, 0, 1},
    {"bwd_filter dw == dy", CO_BWD_FILTER, 1, 0},
    {"bwd_filter dw inside dy", CO_BWD_FILTER, 1, 1},
    {"bwd_bias db == dy", CO_BWD_BIAS, 0, 0},
    {"bwd_bias db inside dy", CO_BWD_BIAS, 0, 1},
};

int main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_REF);
    /* one fixed problem: 2x4x6x6 input, 4x4x3x3 filter, pad 1: all tensors of similar size */
    co_shape_t s = {2, 2, 4, 4, 1, {6, 6, 0}, {3, 3, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, 0};
    int runs = 0;
    for (int t = 0; t < 4; t++)
        for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
            const alias_t *al = &aliases[i];
            cc_case_t c;
            memset(&c, 0, sizeof c);
            c.dir = al->dir, c.dt = cc_dtypes[t], c.s = s, c.bstride = 1;
            c.comp = c.dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
            c.alpha = 1.0, c.beta = 0.0;
            fd_rng_t r;
            fd_rng_seed(&r, 5);
            cc_set_layouts(&c, CC_NCHW, CC_NCHW, &r);
            cc_desc_t d;
            if (cc_desc_make(&c, &d)) {
                cc_desc_free(&d);
                continue;
            }
            size_t es = fd_test_dtype_size(c.dt);
            int64_t counts[4] = {co_x_count(&s), co_w_count(&s), co_y_count(&s), s.k};
            /* inputs in co_run order: fwd (x, w), bwd_data (dy, w), bwd_filter (x, dy), bias (dy)
             */
            int in_kind[2] = {c.dir == CO_BWD_DATA || c.dir == CO_BWD_BIAS ? 2 : 0,
                              c.dir == CO_BWD_FILTER ? 2 : 1};
            int64_t n_in[2] = {counts[in_kind[0]], counts[in_kind[1]]};
            int64_t biggest = counts[0] > counts[1] ? counts[0] : counts[1];
            biggest = biggest > counts[2] ? biggest : counts[2];
            fd_buf_t shared = fd_buf_alloc((size_t)(3 * biggest) * es),
                     other = fd_buf_alloc((size_t)biggest * es);
            fd_rng_seed(&r, 6 + i);
            fd_fill_int(&r, c.dt, shared.data, 3 * biggest, -3, 3, 1.0);
            fd_fill_int(&r, c.dt, other.data, biggest, -3, 3, 1.0);
            void *in_ptr[2];
            in_ptr[al->out_over] = shared.data;
            in_ptr[1 - al->out_over] = other.data;
            unsigned char *out = (unsigned char *)shared.data +
                                 (al->mid ? (size_t)(n_in[al->out_over] / 2) * es : 0);
            uint64_t h_shared = fd_buf_hash(&shared), h_other = fd_buf_hash(&other);
            cudnnStatus_t st = cc_call(h, &c, &d, 0, in_ptr[0],
                                       c.dir == CO_BWD_BIAS ? NULL : in_ptr[1], out, NULL, 0);
            char rep[512];
            cc_repro(&c, rep, sizeof rep);
            FD_EXPECT(st == CUDNN_STATUS_NOT_SUPPORTED,
                      "%s (%s): status %s, expected CUDNN_STATUS_NOT_SUPPORTED; %s", al->name,
                      fd_test_dtype_short(c.dt), cudnnGetErrorString(st), rep);
            FD_EXPECT(fd_buf_hash(&shared) == h_shared && fd_buf_hash(&other) == h_other &&
                          fd_buf_guards_ok(&shared) && fd_buf_guards_ok(&other),
                      "%s (%s): the rejected call changed memory; %s", al->name,
                      fd_test_dtype_short(c.dt), rep);
            fd_buf_free(&shared), fd_buf_free(&other);
            cc_desc_free(&d);
            runs++;
        }
    printf("%d aliasing calls\n", runs);
    cudnnDestroy(h);
    return fd_test_finish();
}
