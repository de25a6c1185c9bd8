/* SPDX-License-Identifier: MIT */
/*
 * dropout_cpu.c - cpu dropout forward and backward (FD_OP_DROPOUT_FWD / _BWD cpu rows; the
 * states initialisation stays with the ref row).
 *
 * Decisions:
 * - The same mask as src/ref/dropout_ref.c, bit for bit (docs/dropout.md): element i of the
 *   canonical order is kept iff word i % 4 of Philox4x32-10(block i / 4, call; seed) is >= the
 *   threshold. Each 4-element block's counter is independent of the others, so the generator
 *   runs as a loop over the blocks of a chunk that the compiler vectorises (32x32->64-bit
 *   multiplies), and chunks of the canonical index range are split across threads.
 * - Values as the ref: keep ? x * scale (in double, rounded once) : +0, written through the
 *   memop.h block store; the reserve space gets the mask bytes (1 kept, 0 dropped).
 * - Strides: each tensor is walked in canonical order by its own cursor (x and y may have
 *   different dims of the same element count), in runs along the innermost dim after merging
 *   the dims that are contiguous in canonical order (a packed tensor is one run).
 * - Threads: units of FD_CPU_UNIT canonical elements (a multiple of 4); every element's value
 *   depends only on its index, so results do not depend on OMP_NUM_THREADS. No allocation, no
 *   workspace; in-place (y == x, identical dims and strides) works, since a chunk is read
 *   whole before it is written.
 * FLOAT, DOUBLE, HALF, BFLOAT16 (all the API takes); negative strides are declined (the API
 * rejects them anyway).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include "../core/dropout.h"
#include "memop.h"

#define DR_BLOCKS (FD_CPU_BLK / 4) /* Philox blocks per chunk */

/* ---- the generator, vectorised across blocks ------------------------------------------- */

/* keep[j] for the 4 * nb elements of blocks b0 .. b0 + nb - 1. */
FD_CPU_CLONES static void philox_keep(uint64_t seed, uint64_t call, uint64_t b0, int nb,
                                      uint64_t threshold, unsigned char *restrict keep)
{
    uint32_t o0[DR_BLOCKS], o1[DR_BLOCKS], o2[DR_BLOCKS], o3[DR_BLOCKS];
    const uint32_t c2i = (uint32_t)call, c3i = (uint32_t)(call >> 32);
    const uint32_t k0i = (uint32_t)seed, k1i = (uint32_t)(seed >> 32);
    /* the state words live in 64-bit lanes (upper halves zero) so that the products are
     * single 32x32->64 vector multiplies without widening shuffles */
    const uint64_t m32 = 0xffffffffu;
    for (int j = 0; j < nb; j++) {
        uint64_t b = b0 + (uint64_t)j;
        uint64_t c0 = b & m32, c1 = b >> 32, c2 = c2i, c3 = c3i;
        uint64_t k0 = k0i, k1 = k1i;
        for (int round = 0; round < 10; round++) {
            uint64_t p0 = 0xD2511F53u * c0, p1 = 0xCD9E8D57u * c2;
            uint64_t n0 = ((p1 >> 32) ^ c1 ^ k0) & m32, n1 = p1 & m32;
            uint64_t n2 = ((p0 >> 32) ^ c3 ^ k1) & m32, n3 = p0 & m32;
            c0 = n0, c1 = n1, c2 = n2, c3 = n3;
            k0 = (k0 + 0x9E3779B9u) & m32;
            k1 = (k1 + 0xBB67AE85u) & m32;
        }
        o0[j] = (uint32_t)c0, o1[j] = (uint32_t)c1, o2[j] = (uint32_t)c2, o3[j] = (uint32_t)c3;
    }
    for (int j = 0; j < nb; j++) {
        keep[4 * j + 0] = (uint64_t)o0[j] >= threshold;
        keep[4 * j + 1] = (uint64_t)o1[j] >= threshold;
        keep[4 * j + 2] = (uint64_t)o2[j] >= threshold;
        keep[4 * j + 3] = (uint64_t)o3[j] >= threshold;
    }
}

/* ---- canonical-order cursors ------------------------------------------------------------ */

typedef struct {
    int nd;
    int64_t dim[FD_DIM_MAX], st[FD_DIM_MAX], idx[FD_DIM_MAX];
    int64_t off;
    cudnnDataType_t dt;
    size_t esz;
} dr_cur_t;

/* Positions c at canonical index i of t. */
static void cur_init(dr_cur_t *c, const struct cudnnTensorStruct *t, int64_t i)
{
    c->nd = 0;
    c->dt = t->dtype;
    c->esz = fd_dtype_size(t->dtype);
    for (int d = 0; d < t->nb_dims; d++) {
        if (t->dim[d] == 1)
            continue;
        if (c->nd > 0 && c->st[c->nd - 1] == (int64_t)t->stride[d] * t->dim[d]) {
            c->dim[c->nd - 1] *= t->dim[d];
            c->st[c->nd - 1] = t->stride[d];
            continue;
        }
        c->dim[c->nd] = t->dim[d];
        c->st[c->nd] = t->stride[d];
        c->nd++;
    }
    if (c->nd == 0) {
        c->nd = 1;
        c->dim[0] = 1;
        c->st[0] = 1;
    }
    c->off = 0;
    for (int d = c->nd - 1; d >= 0; d--) {
        c->idx[d] = i % c->dim[d];
        i /= c->dim[d];
        c->off += c->idx[d] * c->st[d];
    }
}

/* Length of the run from the cursor to the end of its innermost dim, at most n. */
static inline int cur_run(const dr_cur_t *c, int n)
{
    int64_t left = c->dim[c->nd - 1] - c->idx[c->nd - 1];
    return left < n ? (int)left : n;
}

/* Advances by len (<= cur_run) elements. */
static inline void cur_step(dr_cur_t *c, int len)
{
    int d = c->nd - 1;
    c->idx[d] += len;
    c->off += len * c->st[d];
    while (d > 0 && c->idx[d] == c->dim[d]) {
        c->off -= c->dim[d] * c->st[d];
        c->idx[d] = 0;
        d--;
        c->idx[d]++;
        c->off += c->st[d];
    }
}

static void cur_load(dr_cur_t *c, const void *base, int n, double *buf)
{
    for (int j = 0; j < n;) {
        int len = cur_run(c, n - j);
        fd_cpu_load(c->dt, (const char *)base + (size_t)c->off * c->esz, c->st[c->nd - 1], len,
                    buf + j);
        cur_step(c, len);
        j += len;
    }
}

static void cur_store(dr_cur_t *c, void *base, int n, const double *v)
{
    for (int j = 0; j < n;) {
        int len = cur_run(c, n - j);
        fd_cpu_store(c->dt, (char *)base + (size_t)c->off * c->esz, c->st[c->nd - 1], len, v + j,
                     1.0, 0.0);
        cur_step(c, len);
        j += len;
    }
}

FD_CPU_CLONES static void apply(int n, const unsigned char *restrict keep, double scale,
                                const double *restrict x, double *restrict v)
{
    /* a select through the bits (all zero = +0 for a dropped element, whatever x is): the
     * compiler vectorises this; the ?: form became a mispredicted branch */
    for (int j = 0; j < n; j++) {
        double t = x[j] * scale;
        uint64_t bits;
        memcpy(&bits, &t, sizeof bits);
        bits &= (uint64_t)0 - (uint64_t)keep[j];
        memcpy(&v[j], &bits, sizeof bits);
    }
}

/* Units of FD_CPU_UNIT canonical elements; forward draws the mask (and writes it to the
 * reserve space), backward reads it. */
static void run_all(const fd_dropout_problem_t *p, const fd_dropout_args_t *a, int fwd,
                    uint64_t seed, uint64_t call)
{
    const int64_t units = (p->count + FD_CPU_UNIT - 1) / FD_CPU_UNIT;
    unsigned char *mask = a->reserve;
#pragma omp parallel for schedule(static) if (p->count >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < units; u++) {
        int64_t i0 = u * FD_CPU_UNIT,
                i1 = i0 + FD_CPU_UNIT < p->count ? i0 + FD_CPU_UNIT : p->count;
        dr_cur_t ci, co;
        cur_init(&ci, &p->in, i0);
        cur_init(&co, &p->out, i0);
        double x[FD_CPU_BLK], v[FD_CPU_BLK];
        unsigned char keep[FD_CPU_BLK];
        for (int64_t i = i0; i < i1; i += FD_CPU_BLK) {
            int n = (int)(i1 - i < FD_CPU_BLK ? i1 - i : FD_CPU_BLK);
            const unsigned char *k = mask + i;
            if (fwd) {
                philox_keep(seed, call, (uint64_t)i / 4, (n + 3) / 4, p->threshold, keep);
                memcpy(mask + i, keep, (size_t)n);
                k = keep;
            }
            cur_load(&ci, a->in, n, x);
            apply(n, k, p->scale, x, v);
            cur_store(&co, a->out, n, v);
        }
    }
}

static int check(const fd_dropout_problem_t *p, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p->in.dtype) || !fd_cpu_dtype_ok(p->out.dtype)) {
        snprintf(why, why_size, "%s stays with ref", fd_dtype_name(p->in.dtype));
        return 0;
    }
    if (fd_tensor_has_negative_stride(&p->in) || fd_tensor_has_negative_stride(&p->out)) {
        snprintf(why, why_size, "negative strides");
        return 0;
    }
    return 1;
}

int fd_dropout_fwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    return check(problem, why, why_size);
}

size_t fd_dropout_fwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_dropout_fwd_cpu_run(const void *problem, const void *args)
{
    const fd_dropout_problem_t *p = problem;
    const fd_dropout_args_t *a = args;
    uint64_t seed, call;
    FD_TRY(fd_dropout_states_read(a->states, &seed, &call)); /* host memory: verified as on ref */
    run_all(p, a, 1, seed, call);
    fd_dropout_states_set_calls(a->states, call + 1);
    return CUDNN_STATUS_SUCCESS;
}

int fd_dropout_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    return check(problem, why, why_size);
}

size_t fd_dropout_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_dropout_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_dropout_problem_t *p = problem;
    const fd_dropout_args_t *a = args;
    run_all(p, a, 0, 0, 0);
    return CUDNN_STATUS_SUCCESS;
}
