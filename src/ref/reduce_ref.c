/* SPDX-License-Identifier: MIT */
/*
 * reduce_ref.c - reference cudnnReduceTensor: ADD, MUL, MIN, MAX, AMAX, AVG, NORM1, NORM2,
 * MUL_NO_ZEROS over every dim where C is 1 and A is not (possibly none, possibly all).
 *
 * Each output gathers its slice in row-major order of the reduced dims, accumulating in double
 * (for both compute types) and rounding once into C; no workspace, deterministic.
 * MIN/MAX/AMAX start from the slice's first non-NaN element and replace only on strictly
 * better values, so the index is the first occurrence. NaN: PROPAGATE_NAN makes the result NaN
 * with the index of the first NaN; NOT_PROPAGATE_NAN skips NaNs, and a slice of NaNs only
 * gives the compute type's lowest (MAX) / highest (MIN) finite value or 0 (AMAX), index 0, as
 * cuDNN's max pooling does. The other operators propagate NaN arithmetically. MUL_NO_ZEROS
 * multiplies the non-zero elements (1 when there are none).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "../core/tensor_ops.h"

int fd_tensor_reduce_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_tensor_reduce_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

typedef struct {
    double acc;
    uint32_t index;
    int found; /* MIN/MAX/AMAX: a value (or a propagated NaN) has been taken */
    int nan;   /* a NaN was propagated */
} reduce_state_t;

static void select_step(reduce_state_t *s, const fd_tensor_reduce_problem_t *p, double v,
                        uint32_t pos)
{
    if (s->nan)
        return;
    if (isnan(v)) {
        if (p->nan == CUDNN_PROPAGATE_NAN)
            s->acc = v, s->index = pos, s->found = 1, s->nan = 1;
        return;
    }
    if (p->op == CUDNN_REDUCE_TENSOR_AMAX)
        v = fabs(v);
    int better = !s->found || (p->op == CUDNN_REDUCE_TENSOR_MIN ? v < s->acc : v > s->acc);
    if (better)
        s->acc = v, s->index = pos, s->found = 1;
}

static double empty_select(const fd_tensor_reduce_problem_t *p)
{
    double big = p->comp == CUDNN_DATA_DOUBLE ? DBL_MAX : FLT_MAX;
    switch (p->op) {
    case CUDNN_REDUCE_TENSOR_MIN:
        return big;
    case CUDNN_REDUCE_TENSOR_MAX:
        return -big;
    default:
        return 0.0; /* AMAX */
    }
}

cudnnStatus_t fd_tensor_reduce_ref_run(const void *problem, const void *args)
{
    const fd_tensor_reduce_problem_t *p = problem;
    const fd_tensor_reduce_args_t *a = args;
    const int nb = p->a.nb_dims;
    int64_t rdim[FD_DIM_MAX], ci[FD_DIM_MAX] = {0}, ri[FD_DIM_MAX], ai[FD_DIM_MAX];
    int reduced[FD_DIM_MAX];
    int64_t count = 1;
    for (int i = 0; i < nb; i++) {
        reduced[i] = p->c.dim[i] == 1 && p->a.dim[i] != 1;
        rdim[i] = reduced[i] ? p->a.dim[i] : 1;
        count *= rdim[i];
    }
    const int select = p->op == CUDNN_REDUCE_TENSOR_MIN || p->op == CUDNN_REDUCE_TENSOR_MAX ||
                       p->op == CUDNN_REDUCE_TENSOR_AMAX;
    int64_t o = 0;
    do {
        reduce_state_t s = {0.0, 0, 0, 0};
        double acc = (p->op == CUDNN_REDUCE_TENSOR_MUL || p->op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
                         ? 1.0
                         : 0.0;
        memset(ri, 0, sizeof ri);
        uint32_t pos = 0;
        do {
            for (int i = 0; i < nb; i++)
                ai[i] = reduced[i] ? ri[i] : ci[i];
            double v = fd_load(p->a.dtype, a->a, fd_tview_offset(&p->a, ai));
            switch (p->op) {
            case CUDNN_REDUCE_TENSOR_ADD:
            case CUDNN_REDUCE_TENSOR_AVG:
                acc += v;
                break;
            case CUDNN_REDUCE_TENSOR_MUL:
                acc *= v;
                break;
            case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:
                if (v != 0.0)
                    acc *= v;
                break;
            case CUDNN_REDUCE_TENSOR_NORM1:
                acc += fabs(v);
                break;
            case CUDNN_REDUCE_TENSOR_NORM2:
                acc += v * v;
                break;
            default:
                select_step(&s, p, v, pos);
                break;
            }
            pos++;
        } while (fd_index_next(ri, rdim, nb));

        double r = acc;
        if (select)
            r = s.found ? s.acc : empty_select(p);
        else if (p->op == CUDNN_REDUCE_TENSOR_AVG)
            r = acc / (double)count;
        else if (p->op == CUDNN_REDUCE_TENSOR_NORM2)
            r = sqrt(acc);
        int64_t off = fd_tview_offset(&p->c, ci);
        double out = a->alpha * r;
        if (a->beta != 0.0)
            out += a->beta * fd_load(p->c.dtype, a->c, off);
        fd_store(p->c.dtype, a->c, off, out);
        if (p->want_indices && a->indices != NULL) {
            uint32_t idx = s.found ? s.index : 0;
            memcpy((unsigned char *)a->indices + (size_t)o * sizeof idx, &idx, sizeof idx);
        }
        o++;
    } while (fd_index_next(ci, p->c.dim, nb));
    return CUDNN_STATUS_SUCCESS;
}
