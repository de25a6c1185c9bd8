/* SPDX-License-Identifier: MIT */
/*
 * softmax_ref.c - reference softmax forward and backward, every algorithm and mode.
 *
 * Each row (the elements one softmax normalises, see core/softmax.h) is read in canonical
 * order: the maximum, then sum(exp(x - max)) in double, then each output. FAST is computed
 * exactly like ACCURATE (max subtracted: never less accurate than cuDNN's FAST). A row of all
 * -inf gives NaN (0/0, as cuDNN), and NaN anywhere in a row makes the row NaN. Each output
 * element is written after the last read of the same element of an aliased input, so exact
 * in-place calls (y == x, dx == dy or dx == y with identical strides) work. No workspace.
 */
#include <math.h>

#include "../core/softmax.h"

/* The dims of one row and the dims that enumerate rows. */
typedef struct {
    int nrow, nout;
    int row[FD_DIM_MAX], out[FD_DIM_MAX];
    int64_t row_len, rows;
} split_t;

static split_t split_dims(const struct cudnnTensorStruct *t, cudnnSoftmaxMode_t mode)
{
    split_t s = {.row_len = 1, .rows = 1};
    for (int d = 0; d < t->nb_dims; d++) {
        int in_row = mode == CUDNN_SOFTMAX_MODE_CHANNEL ? d == 1 : d >= 1;
        if (in_row) {
            s.row[s.nrow++] = d;
            s.row_len *= t->dim[d];
        } else {
            s.out[s.nout++] = d;
            s.rows *= t->dim[d];
        }
    }
    return s;
}

/* Element offset of (row o, element r of the row) in t. */
static int64_t offset_of(const struct cudnnTensorStruct *t, const split_t *s, int64_t o, int64_t r)
{
    int64_t off = 0;
    for (int k = s->nrow - 1; k >= 0; k--) {
        int d = s->row[k];
        off += (r % t->dim[d]) * t->stride[d];
        r /= t->dim[d];
    }
    for (int k = s->nout - 1; k >= 0; k--) {
        int d = s->out[k];
        off += (o % t->dim[d]) * t->stride[d];
        o /= t->dim[d];
    }
    return off;
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

int fd_softmax_fwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_softmax_fwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_softmax_fwd_ref_run(const void *problem, const void *args)
{
    const fd_softmax_fwd_problem_t *p = problem;
    const fd_softmax_fwd_args_t *a = args;
    const struct cudnnTensorStruct *x = &p->x, *y = &p->y;
    split_t s = split_dims(x, p->mode);
    for (int64_t o = 0; o < s.rows; o++) {
        double mx = -INFINITY;
        int nan = 0;
        for (int64_t r = 0; r < s.row_len; r++) {
            double v = fd_load(x->dtype, a->x, offset_of(x, &s, o, r));
            nan |= isnan(v);
            mx = v > mx ? v : mx;
        }
        if (nan)
            mx = NAN;
        double sum = 0.0;
        for (int64_t r = 0; r < s.row_len; r++)
            sum += exp(fd_load(x->dtype, a->x, offset_of(x, &s, o, r)) - mx);
        double log_sum = log(sum);
        for (int64_t r = 0; r < s.row_len; r++) {
            double d = fd_load(x->dtype, a->x, offset_of(x, &s, o, r)) - mx;
            double v = p->algo == CUDNN_SOFTMAX_LOG ? d - log_sum : exp(d) / sum;
            blend_store(y->dtype, a->y, offset_of(y, &s, o, r), a->alpha, a->beta, v);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_softmax_bwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_softmax_bwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_softmax_bwd_ref_run(const void *problem, const void *args)
{
    const fd_softmax_bwd_problem_t *p = problem;
    const fd_softmax_bwd_args_t *a = args;
    const struct cudnnTensorStruct *y = &p->y, *dy = &p->dy, *dx = &p->dx;
    const int is_log = p->algo == CUDNN_SOFTMAX_LOG;
    split_t s = split_dims(y, p->mode);
    for (int64_t o = 0; o < s.rows; o++) {
        double sum = 0.0; /* LOG: sum(dy); otherwise sum(dy * y) */
        for (int64_t r = 0; r < s.row_len; r++) {
            double g = fd_load(dy->dtype, a->dy, offset_of(dy, &s, o, r));
            sum += is_log ? g : g * fd_load(y->dtype, a->y, offset_of(y, &s, o, r));
        }
        for (int64_t r = 0; r < s.row_len; r++) {
            double g = fd_load(dy->dtype, a->dy, offset_of(dy, &s, o, r));
            double yv = fd_load(y->dtype, a->y, offset_of(y, &s, o, r));
            double v = is_log ? g - exp(yv) * sum : yv * (g - sum);
            blend_store(dx->dtype, a->dx, offset_of(dx, &s, o, r), a->alpha, a->beta, v);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}
