/* SPDX-License-Identifier: MIT */
/*
 * activation_ref.c - reference activation forward and backward (FD_OP_ACT_FWD / _BWD rows).
 *
 * One pass over every index tuple of the (up to 8-d) shape, each tensor addressed through its
 * own element strides, so any layout works and an output may be the same memory as an input
 * with the same strides (each element is read before it is written). Values are loaded to
 * double, the mode is applied by the scalar definitions of src/core/activation.h, and the
 * result is blended and rounded once. FLOAT, DOUBLE, HALF, BFLOAT16. No workspace.
 */
#include "../core/activation.h"

int fd_act_fwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1; /* the API entry admits only what the reference computes */
}

size_t fd_act_fwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

int fd_act_bwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_act_bwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* Index odometer over p->dim, keeping the element offset of up to four tensors. */
typedef struct {
    int64_t idx[FD_DIM_MAX];
    int64_t off[4];
} walk_t;

static int64_t element_count(const fd_act_problem_t *p)
{
    int64_t n = 1;
    for (int i = 0; i < p->nb_dims; i++)
        n *= p->dim[i];
    return n;
}

static void walk_step(walk_t *w, const fd_act_problem_t *p, const int64_t *const strides[4], int nt)
{
    for (int d = p->nb_dims - 1; d >= 0; d--) {
        if (++w->idx[d] < p->dim[d]) {
            for (int t = 0; t < nt; t++)
                w->off[t] += strides[t][d];
            return;
        }
        w->idx[d] = 0;
        for (int t = 0; t < nt; t++)
            w->off[t] -= (p->dim[d] - 1) * strides[t][d];
    }
}

/* Blend and store: beta == 0 never reads the old value (it may be NaN). */
static void blend_store(cudnnDataType_t dt, void *out, int64_t off, double alpha, double beta,
                        double v)
{
    double r = alpha * v;
    if (beta != 0.0)
        r += beta * fd_load(dt, out, off);
    fd_store(dt, out, off, r);
}

cudnnStatus_t fd_act_fwd_ref_run(const void *problem, const void *args)
{
    const fd_act_problem_t *p = problem;
    const fd_act_args_t *a = args;
    const int64_t *const strides[4] = {p->xs, p->ys, p->xs, p->xs};
    walk_t w = {{0}, {0}};
    const int64_t count = element_count(p);
    for (int64_t e = 0; e < count; e++) {
        double v = fd_act_fwd_value(&p->act, fd_load(p->dt, a->x, w.off[0]));
        blend_store(p->dt, a->out, w.off[1], a->alpha, a->beta, v);
        walk_step(&w, p, strides, 2);
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_act_bwd_ref_run(const void *problem, const void *args)
{
    const fd_act_problem_t *p = problem;
    const fd_act_args_t *a = args;
    const int64_t *const strides[4] = {p->ys, p->dys, p->xs, p->dxs};
    walk_t w = {{0}, {0}};
    const int64_t count = element_count(p);
    for (int64_t e = 0; e < count; e++) {
        double y = fd_load(p->dt, a->y, w.off[0]);
        double dy = fd_load(p->dt, a->dy, w.off[1]);
        double x = fd_load(p->dt, a->x, w.off[2]);
        blend_store(p->dt, a->out, w.off[3], a->alpha, a->beta,
                    fd_act_bwd_value(&p->act, y, dy, x));
        walk_step(&w, p, strides, 4);
    }
    return CUDNN_STATUS_SUCCESS;
}
