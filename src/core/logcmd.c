/* SPDX-License-Identifier: MIT */
/*
 * logcmd.c - FREEDNN_LOG_CMD=1: the dnnbench line that reproduces a compute call (DESIGN D10).
 *
 * The problem becomes dnnbench's compact form (n c h w k r s, p/q pad, u/v stride, l/j
 * dilation, g groups; docs/dnnbench.md); packed NCHW / NHWC tensors become --layout, the data
 * and math types --dt and --math, CUDNN_CONVOLUTION --conv-mode=conv. What dnnbench cannot
 * express is written after the command as a shell comment.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "logcmd.h"

static const char *const math_names[] = {"default", "tensor_op", "tensor_op_allow_conversion",
                                         "fma"};

/* 1 when `stride` is the packed layout whose dims run outermost to innermost in `order`;
 * dims of size 1 may have any stride. */
static int is_packed(const int64_t *dim, const int64_t *stride, const int *order, int n)
{
    int64_t expect = 1;
    for (int i = n - 1; i >= 0; i--) {
        int d = order[i];
        if (dim[d] > 1 && stride[d] != expect)
            return 0;
        expect *= dim[d];
    }
    return 1;
}

/* "nchw", "nhwc" or NULL for a tensor of dims N, C, D, H, W (problem order) and its strides. */
static const char *layout_of(int64_t n, int64_t c, const int64_t *sp, const int64_t *stride)
{
    static const int nchw[] = {0, 1, 2, 3, 4}, nhwc[] = {0, 2, 3, 4, 1};
    const int64_t dim[5] = {n, c, sp[0], sp[1], sp[2]};
    if (is_packed(dim, stride, nchw, 5))
        return "nchw";
    if (is_packed(dim, stride, nhwc, 5))
        return "nhwc";
    return NULL;
}

static void append(char *buf, size_t size, const char *fmt, const char *a)
{
    size_t used = strlen(buf);
    if (used < size)
        snprintf(buf + used, size - used, fmt, a);
}

static void format_line(const fd_conv_problem_t *p, int algo, fd_backend_t backend, char *buf,
                        size_t size)
{
    static const char *const dirs[] = {"fwd", "bwd_data", "bwd_filter"};
    static const char *const backends[] = {"ref", "cpu", "cuda"};
    char note[512] = "";

    /* data type and math */
    const char *dt = "f32", *math = NULL;
    cudnnMathType_t natural = CUDNN_FMA_MATH;
    switch (p->xdt) {
    case CUDNN_DATA_DOUBLE:
        dt = "f64", natural = CUDNN_DEFAULT_MATH;
        break;
    case CUDNN_DATA_HALF:
        dt = "f16", natural = CUDNN_TENSOR_OP_MATH;
        break;
    case CUDNN_DATA_BFLOAT16:
        dt = "bf16", natural = CUDNN_TENSOR_OP_MATH;
        break;
    default:
        if (p->math == CUDNN_TENSOR_OP_MATH || p->math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
            dt = "tf32", natural = CUDNN_TENSOR_OP_MATH;
        break;
    }
    if (p->math != natural && (int)p->math >= 0 && (int)p->math < 4)
        math = math_names[p->math];
    if (p->compute != p->xdt && p->xdt != CUDNN_DATA_HALF && p->xdt != CUDNN_DATA_BFLOAT16)
        append(note, sizeof note, "; computeType %s", fd_dtype_name(p->compute));
    if ((p->xdt == CUDNN_DATA_HALF || p->xdt == CUDNN_DATA_BFLOAT16) && p->compute == p->xdt)
        append(note, sizeof note, "; computeType %s (dnnbench accumulates in FLOAT)",
               fd_dtype_name(p->compute));

    /* layouts */
    const char *xl = layout_of(p->n, p->c, p->in, p->xs),
               *yl = layout_of(p->n, p->k, p->out, p->ys);
    const char *wl = p->wformat == CUDNN_TENSOR_NHWC ? "nhwc" : "nchw";
    const char *layout = xl && yl && strcmp(xl, yl) == 0 ? xl : "nchw";
    char strides[160];
    if (!xl || !yl || strcmp(xl, yl) != 0) {
        snprintf(strides, sizeof strides,
                 "; strided tensors: x %" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                 " y %" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64,
                 p->xs[0], p->xs[1], p->xs[2], p->xs[3], p->xs[4], p->ys[0], p->ys[1], p->ys[2],
                 p->ys[3], p->ys[4]);
        append(note, sizeof note, "%s", strides);
    }
    if (strcmp(wl, layout) != 0)
        append(note, sizeof note, "; the filter is %s", wl);
    if (p->nsp == 3) {
        char d[96];
        snprintf(d, sizeof d,
                 "; 3-d: D %" PRId64 " T %" PRId64 " pad %" PRId64 " stride %" PRId64
                 " dilation %" PRId64 " (the line is the H, W part)",
                 p->in[0], p->flt[0], p->pad[0], p->stride[0], p->dil[0]);
        append(note, sizeof note, "%s", d);
    } else if (p->nsp == 1) {
        append(note, sizeof note, "%s",
               "; 1-d descriptors (the same computation as 2-d with H = R = 1)");
    }

    /* the compact problem: the H and W dims are the last two of the padded spatial arrays */
    char q[24] = "", v[24] = "", j[24] = "";
    if (p->pad[2] != p->pad[1])
        snprintf(q, sizeof q, "q%" PRId64, p->pad[2]);
    if (p->stride[2] != p->stride[1])
        snprintf(v, sizeof v, "v%" PRId64, p->stride[2]);
    if (p->dil[2] != p->dil[1])
        snprintf(j, sizeof j, "j%" PRId64, p->dil[2]);
    snprintf(buf, size,
             "dnnbench --op=conv --dir=%s --dt=%s --layout=%s --backend=%s --algo=%d%s%s%s "
             "n%" PRId64 "c%" PRId64 "h%" PRId64 "w%" PRId64 "k%" PRId64 "r%" PRId64 "s%" PRId64
             "p%" PRId64 "%su%" PRId64 "%sl%" PRId64 "%sg%" PRId64 "%s%s",
             dirs[p->dir], dt, layout,
             (int)backend >= 0 && backend < FD_BACKEND_COUNT ? backends[backend] : "cpu", algo,
             math ? " --math=" : "", math ? math : "",
             p->cross_correlation ? "" : " --conv-mode=conv", p->n, p->c, p->in[1], p->in[2], p->k,
             p->flt[1], p->flt[2], p->pad[1], q, p->stride[1], v, p->dil[1], j, p->groups,
             note[0] ? "  # not expressed" : "", note);
}

void fd_log_cmd_conv(const fd_conv_problem_t *p, int algo, fd_backend_t backend)
{
    char line[1024];
    format_line(p, algo, backend, line, sizeof line);
    fprintf(stderr, "freednn: %s\n", line);
}
