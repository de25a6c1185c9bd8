/* SPDX-License-Identifier: MIT */
/*
 * tensor_ops.cu - the elementwise tensor utilities on the GPU: rows fd_tensor_add_cuda
 * (cudnnAddTensor, broadcasting), fd_tensor_op_cuda (cudnnOpTensor, every cudnnOpTensorOp_t and
 * NaN option), fd_tensor_set_cuda, fd_tensor_scale_cuda and fd_tensor_transform_cuda
 * (cudnnTransformTensor[Ex], cudnnTransformFilter, fold / unfold / pad, the byte copies of
 * cudnnReorderFilterAndBias), with src/ref/tensor_ops_ref.c's semantics.
 *
 * Each output element is computed in double from exact loads and rounded once, as the ref
 * does, so results are bit-identical to it. Operand types are read at run time (OpTensor's
 * INT8 inputs may feed a FLOAT output); the switch is uniform across a warp. The elementwise
 * kernels walk the output in its memory order (strided.cuh), so every layout coalesces its
 * writes; the transform gathers in y's row-major order and takes the vectorised INT8 lanes.
 * One thread per element in grid-stride loops, no workspace, deterministic.
 *
 * Packed fast paths (tensor_ops_kernels.cuh) for FLOAT, DOUBLE, HALF, BFLOAT16: when the output
 * is dense (in any layout), 16-byte aligned, of the inputs' type, and every input reaches it by
 * a (e / div) % mod index (same layout, a per-channel bias of NCHW or NHWC, a scalar), add, op,
 * set, scale and the transform of equal layouts move 128-bit vectors through the same
 * arithmetic; everything else (strided outputs, mixed types, integer types, folds and pads)
 * takes the generic kernels. OpTensor whose A and B are of C's own layout (no broadcast) takes
 * tensor_op_dense: no index gathers, four vectors per thread with the trip's loads first.
 */
#include <stdio.h>
#include <string.h>

#include "elem.cuh"
#include "strided.cuh"

extern "C" {
#include "../core/tensor_ops.h"
}

/* ---- kernels ---------------------------------------------------------------------------- */

/* c = alpha * a (broadcast) + beta * c */
static __global__ void tensor_add_kernel(const sd_nd_t w, cudnnDataType_t dt, const void *a,
                                         void *c, double alpha, double beta)
{
    SD_GRID_LOOP(e, w.total)
    {
        int64_t off[2];
        sd_nd_offsets<2>(w, e, off);
        sd_blend_dt(dt, c, off[0], alpha, beta, sd_ld_dt(dt, a, off[1]));
    }
}

static __device__ __forceinline__ double op_min_max(double x, double y, int is_max, int propagate)
{
    if (isnan(x) || isnan(y)) {
        if (propagate || (isnan(x) && isnan(y)))
            return (double)NAN;
        return isnan(x) ? y : x; /* NOT_PROPAGATE: NaN compares false and is dropped */
    }
    if (is_max)
        return x > y ? x : y;
    return x < y ? x : y;
}

/* op(x, y) of the already scaled operands (y unused by SQRT and NOT) */
static __device__ __forceinline__ double op_apply(cudnnOpTensorOp_t op, int propagate, double x,
                                                  double y)
{
    switch (op) {
    case CUDNN_OP_TENSOR_ADD:
        return __dadd_rn(x, y);
    case CUDNN_OP_TENSOR_MUL:
        return __dmul_rn(x, y);
    case CUDNN_OP_TENSOR_MIN:
        return op_min_max(x, y, 0, propagate);
    case CUDNN_OP_TENSOR_MAX:
        return op_min_max(x, y, 1, propagate);
    case CUDNN_OP_TENSOR_SQRT:
        return sqrt(x);
    default: /* CUDNN_OP_TENSOR_NOT */
        return __dsub_rn(1.0, x);
    }
}

/* c = op(alpha1 * a, alpha2 * b) + beta * c */
static __global__ void tensor_op_kernel(const sd_nd_t w, cudnnOpTensorOp_t op, int propagate,
                                        cudnnDataType_t adt, cudnnDataType_t cdt, const void *a,
                                        const void *b, void *c, double alpha1, double alpha2,
                                        double beta)
{
    const int unary = op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
    SD_GRID_LOOP(e, w.total)
    {
        int64_t off[3]; /* c, a, b */
        sd_nd_offsets<3>(w, e, off);
        /* no FMA contraction: the ref's C rounds each product */
        const double x = __dmul_rn(alpha1, sd_ld_dt(adt, a, off[1]));
        const double y = unary ? 0.0 : __dmul_rn(alpha2, sd_ld_dt(adt, b, off[2]));
        sd_blend_dt(cdt, c, off[0], 1.0, beta, op_apply(op, propagate, x, y));
    }
}

static __global__ void tensor_set_kernel(const sd_nd_t w, cudnnDataType_t dt, void *y, double value)
{
    SD_GRID_LOOP(e, w.total)
    {
        int64_t off[1];
        sd_nd_offsets<1>(w, e, off);
        sd_st_dt(dt, y, off[0], value);
    }
}

static __global__ void tensor_scale_kernel(const sd_nd_t w, cudnnDataType_t dt, void *y, double alpha)
{
    SD_GRID_LOOP(e, w.total)
    {
        int64_t off[1];
        sd_nd_offsets<1>(w, e, off);
        sd_st_dt(dt, y, off[0], __dmul_rn(alpha, sd_ld_dt(dt, y, off[0])));
    }
}

/* fd_tview_offset on the device (the vectorised lanes of dim 1 included). */
static __device__ __forceinline__ int64_t view_offset(const fd_tview_t &v, const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < v.nb_dims; i++) {
        if (v.vect > 1 && i == 1)
            off += (idx[i] / v.vect) * v.stride[i] + idx[i] % v.vect;
        else
            off += idx[i] * v.stride[i];
    }
    return off;
}

/* The ref's fold_source / unfold_source: x's index of y's element yi, 0 in the padding. */
static __device__ int fold_source(const fd_tensor_transform_problem_t &p, const int64_t *yi,
                                  int64_t *xi)
{
    const int nb = p.x.nb_dims;
    int64_t phases = 1;
    for (int i = 2; i < nb; i++)
        phases *= p.fold[i];
    xi[0] = yi[0] - p.pad_before[0];
    const int64_t cc = yi[1] - p.pad_before[1];
    if (xi[0] < 0 || xi[0] >= p.x.dim[0] || cc < 0 || cc >= phases * p.x.dim[1])
        return 0;
    int64_t phase = cc / p.x.dim[1];
    xi[1] = cc % p.x.dim[1];
    for (int i = nb - 1; i >= 2; i--) {
        const int64_t ph = phase % p.fold[i];
        phase /= p.fold[i];
        xi[i] = yi[i] * p.fold[i] + ph - p.pad_before[i];
        if (xi[i] < 0 || xi[i] >= p.x.dim[i])
            return 0;
    }
    return 1;
}

static __device__ int unfold_source(const fd_tensor_transform_problem_t &p, const int64_t *yi,
                                    int64_t *xi)
{
    const int nb = p.x.nb_dims;
    int64_t phase = 0;
    for (int i = 2; i < nb; i++) {
        const int64_t s = yi[i] + p.pad_before[i];
        xi[i] = s / p.fold[i];
        phase = phase * p.fold[i] + s % p.fold[i];
    }
    xi[0] = yi[0] + p.pad_before[0];
    xi[1] = p.pad_before[1] + phase * p.y.dim[1] + yi[1];
    for (int i = 0; i < nb; i++)
        if (xi[i] < 0 || xi[i] >= p.x.dim[i])
            return 0;
    return 1;
}

/* y[i] = alpha * x[map(i)] + beta * y[i], 0 where map falls outside x. */
static __global__ void tensor_transform_kernel(const fd_tensor_transform_problem_t p, int64_t total,
                                               const void *x, void *y, double alpha, double beta)
{
    SD_GRID_LOOP(e, total)
    {
        int64_t yi[FD_DIM_MAX], xi[FD_DIM_MAX];
        int64_t r = e;
        for (int i = p.y.nb_dims - 1; i >= 0; i--) {
            yi[i] = r % p.y.dim[i];
            r /= p.y.dim[i];
        }
        const int inside = p.kind == FD_XFORM_UNFOLD ? unfold_source(p, yi, xi) : fold_source(p, yi, xi);
        const double v = inside ? sd_ld_dt(p.x.dtype, x, view_offset(p.x, xi)) : 0.0;
        sd_blend_dt(p.y.dtype, y, view_offset(p.y, yi), alpha, beta, v);
    }
}

/* The NCHW <-> NHWC transform with alpha 1, beta 0: per image, x is a packed rows x cols
 * matrix and y its transpose (NCHW -> NHWC: rows = C, cols = H W; the reverse: rows = H W,
 * cols = C). A 32 x 32 tile goes through shared memory (a column of padding: no bank conflicts)
 * so both the loads along x's rows and the stores along y's rows are coalesced; the elements are
 * moved as raw bits of their size (U), which is the blend's result when alpha = 1, beta = 0
 * (a value converted to double and back is itself; NaN payloads and INT64 beyond 2^53 even
 * survive, where the generic kernel's double would not). Block 32 x 8, each thread 4 rows;
 * grid x: the tiles of one image, y: images. Bytes: compulsory (one read, one write). */
#define XP_TILE 32
#define XP_ROWS 8
template <typename U>
static __global__ void tensor_transpose_kernel(const U *__restrict__ x, U *__restrict__ y,
                                               int64_t rows, int64_t cols, int64_t ctiles)
{
    __shared__ U tile[XP_TILE][XP_TILE + 1];
    const int64_t img = (int64_t)blockIdx.y * rows * cols;
    const int64_t r0 = (int64_t)(blockIdx.x / ctiles) * XP_TILE;
    const int64_t c0 = (int64_t)(blockIdx.x % ctiles) * XP_TILE;
    x += img, y += img;
#pragma unroll
    for (int i = threadIdx.y; i < XP_TILE; i += XP_ROWS) {
        const int64_t r = r0 + i, c = c0 + threadIdx.x;
        if (r < rows && c < cols)
            tile[i][threadIdx.x] = x[r * cols + c];
    }
    __syncthreads();
#pragma unroll
    for (int i = threadIdx.y; i < XP_TILE; i += XP_ROWS) {
        const int64_t c = c0 + i, r = r0 + threadIdx.x;
        if (c < cols && r < rows)
            y[c * rows + r] = tile[threadIdx.x][i];
    }
}

/* The same transpose on 16-byte vectors (tensor_transpose_vec, FREEDNN_GPU_BW2=0 turns it
 * off): the 32 x 32 kernel above keeps one 4-byte load a thread in flight per row pass (4 KiB a
 * block of f32) and ran 0.83-0.86x NVIDIA's rate on the H200 (n32 C 128 56 x 56 f32). Here a
 * block of 256 threads moves a 64 x 64 tile; each thread issues all its loads first (VN = 16 /
 * sizeof(U) elements a vector, 64 * 64 / VN / 256 vectors a thread: f32 4, 16 KiB a block in
 * flight), then writes the tile to shared memory element by element (a column of padding),
 * then reads VN consecutive tile rows of one column to form one 16-byte vector of y. Taken when
 * rows and cols are multiples of VN and both pointers 16-byte aligned, so a vector is wholly
 * inside or outside the matrix (edge tiles test vectors, not elements). The bits moved are the
 * 32 x 32 kernel's. */
#define XV_TILE 64
#define XV_THREADS 256

/* tensor_transpose_vec's per-thread steps on the tile (r0, c0) of one image's rows x cols matrix
 * x (y its transpose): the loads of its NV vectors, their elements into the shared tile, and
 * its NV vectors of y from the tile. */
template <typename U, int NV>
static __device__ __forceinline__ void xv_load(const U *__restrict__ x, int64_t rows, int64_t cols,
                                               int64_t r0, int64_t c0, uint4 *v)
{
    constexpr int VN = 16 / (int)sizeof(U), VR = XV_TILE / VN;
    const int t = (int)threadIdx.x;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int q = k * XV_THREADS + t, i = q / VR, cq = (q % VR) * VN;
        const int64_t r = r0 + i, c = c0 + cq;
        if (r < rows && c < cols)
            v[k] = *(const uint4 *)(x + (r * cols + c));
    }
}
template <typename U, int NV>
static __device__ __forceinline__ void xv_put(U (*tile)[XV_TILE + 1], int64_t rows, int64_t cols,
                                              int64_t r0, int64_t c0, const uint4 *v)
{
    constexpr int VN = 16 / (int)sizeof(U), VR = XV_TILE / VN;
    const int t = (int)threadIdx.x;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int q = k * XV_THREADS + t, i = q / VR, cq = (q % VR) * VN;
        if (r0 + i < rows && c0 + cq < cols) {
            U e[VN];
            memcpy(e, &v[k], 16);
#pragma unroll
            for (int l = 0; l < VN; l++)
                tile[i][cq + l] = e[l];
        }
    }
}
template <typename U, int NV>
static __device__ __forceinline__ void xv_store(U *__restrict__ y, int64_t rows, int64_t cols,
                                                int64_t r0, int64_t c0, U (*tile)[XV_TILE + 1])
{
    constexpr int VN = 16 / (int)sizeof(U), VR = XV_TILE / VN;
    const int t = (int)threadIdx.x;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int q = k * XV_THREADS + t, i = q / VR, rq = (q % VR) * VN;
        const int64_t c = c0 + i, r = r0 + rq;
        if (c < cols && r < rows) {
            U e[VN];
#pragma unroll
            for (int l = 0; l < VN; l++)
                e[l] = tile[rq + l][i];
            uint4 o;
            memcpy(&o, e, 16);
            *(uint4 *)(y + (c * rows + r)) = o;
        }
    }
}

template <typename U>
static __global__ void __launch_bounds__(XV_THREADS)
    tensor_transpose_vec(const U *__restrict__ x, U *__restrict__ y, int64_t rows, int64_t cols,
                         int64_t ctiles)
{
    /* vectors a thread */
    constexpr int NV = XV_TILE * (XV_TILE * (int)sizeof(U) / 16) / XV_THREADS;
    __shared__ U tile[XV_TILE][XV_TILE + 1];
    const int64_t img = (int64_t)blockIdx.y * rows * cols;
    const int64_t r0 = (int64_t)(blockIdx.x / ctiles) * XV_TILE;
    const int64_t c0 = (int64_t)(blockIdx.x % ctiles) * XV_TILE;
    uint4 v[NV];
    xv_load<U, NV>(x + img, rows, cols, r0, c0, v);
    xv_put<U, NV>(tile, rows, cols, r0, c0, v);
    __syncthreads();
    xv_store<U, NV>(y + img, rows, cols, r0, c0, tile);
}

/* The same tiles walked by a grid of a few blocks an SM, each loading its next tile into
 * registers before it writes the current one out (FREEDNN_GPU_BW3, 2026-12-01: one tile a block
 * ran 0.91-0.93x NVIDIA's rate on the H200, n32 C 128 56 x 56 f32): its loads stay in flight
 * through the shared-memory pass and the stores, and no block waits on a fresh launch between
 * tiles. Tile k of the grid: image k / tpi, then as above; the same bits. */
#define XP_PIPE_MINB(size) ((size) == 8 ? 2 : 4) /* blocks an SM: its loads in flight, 2 tiles */
template <typename U>
static __global__ void __launch_bounds__(XV_THREADS, XP_PIPE_MINB(sizeof(U)))
    tensor_transpose_pipe(const U *__restrict__ x, U *__restrict__ y, int64_t rows, int64_t cols,
                          int64_t ctiles, int64_t nimg)
{
    constexpr int NV = XV_TILE * (XV_TILE * (int)sizeof(U) / 16) / XV_THREADS;
    __shared__ U tile[XV_TILE][XV_TILE + 1];
    const int64_t tpi = ((rows + XV_TILE - 1) / XV_TILE) * ctiles, all = tpi * nimg;
    uint4 v[NV], w[NV];
    int64_t k = blockIdx.x;
    if (k >= all)
        return;
    int64_t img = k / tpi * rows * cols, tl = k % tpi;
    int64_t r0 = tl / ctiles * XV_TILE, c0 = tl % ctiles * XV_TILE;
    xv_load<U, NV>(x + img, rows, cols, r0, c0, v);
    for (;;) {
        xv_put<U, NV>(tile, rows, cols, r0, c0, v);
        __syncthreads();
        const int64_t kn = k + gridDim.x;
        const int64_t imgn = kn / tpi * rows * cols, tn = kn % tpi;
        const int64_t rn = tn / ctiles * XV_TILE, cn = tn % ctiles * XV_TILE;
        if (kn < all)
            xv_load<U, NV>(x + imgn, rows, cols, rn, cn, w);
        xv_store<U, NV>(y + img, rows, cols, r0, c0, tile);
        if (kn >= all)
            break;
        __syncthreads(); /* the tile is read before the next pass writes it */
#pragma unroll
        for (int j = 0; j < NV; j++)
            v[j] = w[j];
        k = kn, img = imgn, r0 = rn, c0 = cn;
    }
}

/* FREEDNN_GPU_BW2=0 turns off the second round of bandwidth kernels (this transpose, the
 * pooling / softmax / LRN variants that name it); read once per process (pooling.cu). */
extern "C" int fd_cuda_bw2_on(void);
/* FREEDNN_GPU_BW3=0: the third round's (tensor_transpose_pipe here); pooling.cu. */
extern "C" int fd_cuda_bw3_on(void);

/* ---- packed fast paths, once per storage type --------------------------------------------- */

/* How an input reaches the dense output's element e: at (e / div) % mod; vec: read as 16-byte
 * vectors at e % mod (div 1, mod a multiple of the vector, the pointer aligned). */
typedef struct {
    int64_t div, mod;
    int vec;
} to_bcast_t;

#define TO_DENSE_U 4 /* vectors per thread per trip of tensor_op_dense */

/* How tensor_bias_lean<B, M> reads A (tensor_ops_kernels.cuh) */
#define TO_LEAN_PLANE 0 /* one element a vector (NCHW per-channel bias, a scalar) */
#define TO_LEAN_RUNV 1  /* a run of consecutive elements, one 16-byte load (NHWC bias) */
#define TO_LEAN_RUNS 2  /* the same run, A misaligned: scalar loads */

/* 1 when tensor_op_dense may add or multiply in float and round once to the storage type:
 * alphas 1, beta 0, FLOAT / HALF / BFLOAT16. The double path rounds the exact-or-53-bit result
 * once; one float operation on p-bit inputs rounds the exact result to 24 bits, then to p: for
 * + and x, a first rounding to q >= 2p + 2 bits never changes the second (half p = 11, bf16 8,
 * and for FLOAT itself the float operation is the correctly rounded one), so the bits agree
 * and the 16-bit types skip the FP64 conversions that capped them at ~2.3 TB/s. */
static int dense_exact(const fd_tensor_op_problem_t *p, const fd_tensor_op_args_t *a)
{
    return (p->op == CUDNN_OP_TENSOR_ADD || p->op == CUDNN_OP_TENSOR_MUL) && a->alpha1 == 1.0 &&
           a->alpha2 == 1.0 && a->beta == 0.0 && p->c.dtype != CUDNN_DATA_DOUBLE;
}

#define FD_T float
#define FD_SFX f32
#include "tensor_ops_kernels.cuh"
#undef FD_T
#undef FD_SFX

#define FD_T double
#define FD_SFX f64
#include "tensor_ops_kernels.cuh"
#undef FD_T
#undef FD_SFX

#define FD_T __half
#define FD_SFX f16
#include "tensor_ops_kernels.cuh"
#undef FD_T
#undef FD_SFX

#define FD_T __nv_bfloat16
#define FD_SFX bf16
#include "tensor_ops_kernels.cuh"
#undef FD_T
#undef FD_SFX

/* ---- host side -------------------------------------------------------------------------- */

/* 1 when operand 0 of w (the output) is dense in the walk's order, i.e. in its own layout. */
static int walk_dense(const sd_nd_t *w)
{
    int64_t expect = 1;
    for (int k = w->nd - 1; k >= 0; k--) {
        if (w->st[0][k] != expect)
            return 0;
        expect *= w->dim[k];
    }
    return 1;
}

/* The (e / div) % mod rule of operand o over a dense output, 0 when it has none: o's non-zero
 * strides must be one run of walk dims, packed within the run (innermost stride 1). */
static int walk_bcast(const sd_nd_t *w, int o, const void *ptr, cudnnDataType_t dt, to_bcast_t *b)
{
    int k0 = -1, k1 = -1;
    for (int k = 0; k < w->nd; k++) {
        if (w->st[o][k] == 0)
            continue;
        if (k0 >= 0 && k1 != k - 1)
            return 0; /* broadcast dims between two read dims */
        if (k0 < 0)
            k0 = k;
        k1 = k;
    }
    b->div = 1;
    b->mod = 1;
    b->vec = 0;
    if (k0 < 0)
        return 1; /* one element for all */
    if (w->st[o][k1] != 1)
        return 0;
    for (int k = k1; k > k0; k--)
        if (w->st[o][k - 1] != w->st[o][k] * w->dim[k])
            return 0;
    for (int k = k1 + 1; k < w->nd; k++)
        b->div *= w->dim[k];
    for (int k = k0; k <= k1; k++)
        b->mod *= w->dim[k];
    const int64_t vn = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt);
    b->vec = b->div == 1 && b->mod % vn == 0 && fd_cuda_aligned16(ptr);
    return 1;
}

/* 1 when the packed kernels take output view c (at ptr): a float storage type, dense, aligned. */
static int packed_out(const sd_nd_t *w, const fd_tview_t *c, const void *ptr)
{
    return fd_cuda_elem_dtype_ok(c->dtype) && walk_dense(w) && fd_cuda_aligned16(ptr);
}

static unsigned packed_blocks(int64_t total, cudnnDataType_t dt)
{
    const int64_t nv = total / (FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt));
    return fd_cuda_wave_blocks((nv + FD_CUDA_UNROLL - 1) / FD_CUDA_UNROLL);
}

/* The walker over c's dims; operand 0 is c, the others broadcast where their dim is 1. */
static void walker(sd_nd_t *w, const fd_tview_t *c, const fd_tview_t *const *ops, int nops)
{
    int64_t st[FD_ND_OPS][FD_DIM_MAX];
    const int64_t *sp[FD_ND_OPS];
    for (int o = 0; o < nops; o++) {
        const fd_tview_t *v = o == 0 ? c : ops[o - 1];
        for (int i = 0; i < c->nb_dims; i++)
            st[o][i] = v->dim[i] == 1 && c->dim[i] != 1 ? 0 : v->stride[i];
        sp[o] = st[o];
    }
    sd_nd_init(w, c->nb_dims, c->dim, nops, sp);
}

static int view_ok(const fd_tview_t *v, const char *name, char *why, size_t why_size)
{
    if (!sd_dtype_ok(v->dtype)) {
        snprintf(why, why_size, "%s is %s; the cuda tensor kernels take FLOAT, DOUBLE, HALF, "
                 "BFLOAT16, INT8, UINT8, INT32, INT64", name, fd_dtype_name(v->dtype));
        return 0;
    }
    if (v->vect != 1) {
        snprintf(why, why_size, "%s has %d-lane vectors; the elementwise kernels take plain layouts",
                 name, v->vect);
        return 0;
    }
    if (v->nb_dims < 1 || v->nb_dims > FD_ND_DIMS) {
        snprintf(why, why_size, "%s has %d dims", name, v->nb_dims);
        return 0;
    }
    return 1;
}

#define LAUNCHED(what, blocks, stream)                                                         \
    FD_CUDA_LAUNCHED("%s (%u blocks, stream %p)", what, (unsigned)(blocks), (void *)(stream))

/* FREEDNN_GPU_TO_LEAN=0 turns off the lean tensor-op kernels (tensor_ops_kernels.cuh:
 * tensor_bias_lean, tensor_op_lean); read once. On, cudnnAddTensor with alpha 1 and beta 1 (a
 * bias add) or 0 (a broadcast copy) of FLOAT / HALF / BFLOAT16 whose A reaches C one element a
 * vector or by vector runs (bias_lean_plan) takes tensor_bias_lean instead of tensor_add_packed
 * (64-bit (e / div) % mod gathers and a double blend in a grid-stride loop over 4 waves), and
 * cudnnOpTensor ADD / MUL of one dense layout with alphas 1, beta 0 takes tensor_op_lean
 * instead of tensor_op_dense's exact branch (4 vectors a thread and trip): one vector a thread,
 * the grid covering C, the same bits (the kernels' comment). H200 before (graph GB/s,
 * n32c256h56w56): bias add f16 NCHW 2474, NHWC 3327, f32 NHWC 3560; OpTensor ADD f16 3728,
 * f32 4060-4080. Registers: by the kernels (12-32, 8 blocks of 256 an SM). */
static int to_lean_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_TO_LEAN");
    return on;
}

/* The lean grid: one thread a vector, blocks of FD_CUDA_BLOCK (nv < 2^31: fits the x dim). */
static unsigned lean_blocks(int64_t nv)
{
    return (unsigned)((nv + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK);
}

/* tensor_bias_lean<B, M>'s arguments for an add of `total` elements of dt whose A reaches the
 * dense output by ab: 1 with the read mode (*m), dq and mq, else 0 (tensor_add_packed then). */
static int bias_lean_plan(int64_t total, cudnnDataType_t dt, const to_bcast_t *ab, int *m,
                          uint32_t *dq, uint32_t *mq)
{
    const int64_t vn = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt);
    if (total < vn || total % vn != 0 || total / vn > INT32_MAX)
        return 0;
    if (ab->mod == 1 || (ab->div % vn == 0 && ab->div / vn <= UINT32_MAX && ab->mod <= UINT32_MAX)) {
        *m = TO_LEAN_PLANE;
        *dq = ab->mod == 1 ? 1u : (uint32_t)(ab->div / vn);
        *mq = ab->mod == 1 ? 1u : (uint32_t)ab->mod;
        return 1;
    }
    if (ab->div == 1 && ab->mod % vn == 0) { /* mod <= total: fits */
        *m = ab->vec ? TO_LEAN_RUNV : TO_LEAN_RUNS;
        *dq = 1u;
        *mq = (uint32_t)(ab->mod / vn);
        return 1;
    }
    return 0;
}

template <int B, int M>
static cudnnStatus_t bias_lean_go(cudnnDataType_t dt, int64_t nv, uint32_t dq, uint32_t mq,
                                  const void *A, void *C, double alpha, double beta, cudaStream_t s)
{
    const unsigned g = lean_blocks(nv);
    if (dt == CUDNN_DATA_FLOAT)
        tensor_bias_lean_f32<B, M><<<g, FD_CUDA_BLOCK, 0, s>>>((uint32_t)nv, dq, mq, A, C, alpha, beta);
    else if (dt == CUDNN_DATA_HALF)
        tensor_bias_lean_f16<B, M><<<g, FD_CUDA_BLOCK, 0, s>>>((uint32_t)nv, dq, mq, A, C, alpha, beta);
    else
        tensor_bias_lean_bf16<B, M><<<g, FD_CUDA_BLOCK, 0, s>>>((uint32_t)nv, dq, mq, A, C, alpha, beta);
    FD_CUDA_LAUNCHED("tensor_bias_lean<%d, %d> on %s data (%u blocks, stream %p)", B, M,
                     fd_dtype_name(dt), g, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

/* The lean bias add / broadcast copy when it takes the call (see to_lean_on): 1 with *status
 * set, else 0. */
static int bias_lean(const fd_tensor_add_problem_t *p, const fd_tensor_add_args_t *a,
                     int64_t total, const to_bcast_t *ab, cudaStream_t s, cudnnStatus_t *status)
{
    const cudnnDataType_t dt = p->c.dtype;
    int m;
    uint32_t dq, mq;
    if (!to_lean_on() || a->alpha != 1.0 || (a->beta != 1.0 && a->beta != 0.0) ||
        (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16) ||
        !bias_lean_plan(total, dt, ab, &m, &dq, &mq))
        return 0;
    const int64_t nv = total / (FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt));
    const double al = a->alpha, be = a->beta;
#define TO_BIAS_GO(B_, M_) bias_lean_go<B_, M_>(dt, nv, dq, mq, a->a, a->c, al, be, s)
    if (be == 1.0)
        *status = m == TO_LEAN_PLANE ? TO_BIAS_GO(1, TO_LEAN_PLANE)
                  : m == TO_LEAN_RUNV ? TO_BIAS_GO(1, TO_LEAN_RUNV)
                                      : TO_BIAS_GO(1, TO_LEAN_RUNS);
    else
        *status = m == TO_LEAN_PLANE ? TO_BIAS_GO(0, TO_LEAN_PLANE)
                  : m == TO_LEAN_RUNV ? TO_BIAS_GO(0, TO_LEAN_RUNV)
                                      : TO_BIAS_GO(0, TO_LEAN_RUNS);
#undef TO_BIAS_GO
    return 1;
}

/* tensor_op_lean<MUL> of dt (FLOAT, HALF, BFLOAT16) over nv (< 2^31) vectors. */
template <int MUL>
static cudnnStatus_t op_lean_go(cudnnDataType_t dt, int64_t nv, const void *A, const void *B,
                                void *C, cudaStream_t s)
{
    const unsigned g = lean_blocks(nv);
    if (dt == CUDNN_DATA_FLOAT)
        tensor_op_lean_f32<MUL><<<g, FD_CUDA_BLOCK, 0, s>>>((uint32_t)nv, A, B, C);
    else if (dt == CUDNN_DATA_HALF)
        tensor_op_lean_f16<MUL><<<g, FD_CUDA_BLOCK, 0, s>>>((uint32_t)nv, A, B, C);
    else
        tensor_op_lean_bf16<MUL><<<g, FD_CUDA_BLOCK, 0, s>>>((uint32_t)nv, A, B, C);
    FD_CUDA_LAUNCHED("tensor_op_lean<%d> on %s data (%u blocks, stream %p)", MUL,
                     fd_dtype_name(dt), g, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- rows (src/impls.def) --------------------------------------------------------------- */

extern "C" int fd_tensor_add_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_tensor_add_problem_t *p = (const fd_tensor_add_problem_t *)problem;
    return view_ok(&p->a, "A", why, why_size) && view_ok(&p->c, "C", why, why_size);
}
extern "C" size_t fd_tensor_add_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_add_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_add_problem_t *p = (const fd_tensor_add_problem_t *)problem;
    const fd_tensor_add_args_t *a = (const fd_tensor_add_args_t *)args;
    const fd_tview_t *ops[1] = {&p->a};
    sd_nd_t w;
    walker(&w, &p->c, ops, 2);
    cudaStream_t st = a->handle->stream;
    to_bcast_t ab;
    if (p->a.dtype == p->c.dtype && packed_out(&w, &p->c, a->c) &&
        walk_bcast(&w, 1, a->a, p->a.dtype, &ab)) {
        cudnnStatus_t status;
        if (bias_lean(p, a, w.total, &ab, st, &status))
            return status;
        FD_CUDA_TYPED_LAUNCH(p->c.dtype, tensor_add_packed, packed_blocks(w.total, p->c.dtype),
                             FD_CUDA_BLOCK, st, w.total, ab, a->a, a->c, a->alpha, a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned blocks = fd_cuda_blocks(w.total, FD_CUDA_BLOCK);
    tensor_add_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(w, p->c.dtype, a->a, a->c, a->alpha, a->beta);
    LAUNCHED("tensor_add_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_tensor_op_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_tensor_op_problem_t *p = (const fd_tensor_op_problem_t *)problem;
    return view_ok(&p->a, "A", why, why_size) && view_ok(&p->b, "B", why, why_size) &&
           view_ok(&p->c, "C", why, why_size);
}
extern "C" size_t fd_tensor_op_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_op_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_op_problem_t *p = (const fd_tensor_op_problem_t *)problem;
    const fd_tensor_op_args_t *a = (const fd_tensor_op_args_t *)args;
    const fd_tview_t *ops[2] = {&p->a, &p->b};
    sd_nd_t w;
    walker(&w, &p->c, ops, 3);
    cudaStream_t st = a->handle->stream;
    const int unary = p->op == CUDNN_OP_TENSOR_SQRT || p->op == CUDNN_OP_TENSOR_NOT;
    to_bcast_t ab, bb = {1, 1, 0};
    if (p->a.dtype == p->c.dtype && p->b.dtype == p->c.dtype && packed_out(&w, &p->c, a->c) &&
        walk_bcast(&w, 1, a->a, p->a.dtype, &ab) &&
        (unary || walk_bcast(&w, 2, a->b, p->b.dtype, &bb))) {
        const int64_t vn = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->c.dtype);
        if (ab.vec && ab.mod == w.total && (unary || (bb.vec && bb.mod == w.total)) &&
            w.total % vn == 0) {
            const int64_t nv = w.total / vn;
            if (to_lean_on() && dense_exact(p, a) && nv <= INT32_MAX)
                return p->op == CUDNN_OP_TENSOR_MUL ? op_lean_go<1>(p->c.dtype, nv, a->a, a->b, a->c, st)
                                                    : op_lean_go<0>(p->c.dtype, nv, a->a, a->b, a->c, st);
            FD_CUDA_TYPED_LAUNCH(p->c.dtype, tensor_op_dense,
                                 fd_cuda_wave_blocks((nv + TO_DENSE_U - 1) / TO_DENSE_U),
                                 FD_CUDA_BLOCK, st, nv, p->op, p->nan == CUDNN_PROPAGATE_NAN,
                                 a->a, a->b, a->c, a->alpha1, a->alpha2, a->beta,
                                 dense_exact(p, a));
            return CUDNN_STATUS_SUCCESS;
        }
        FD_CUDA_TYPED_LAUNCH(p->c.dtype, tensor_op_packed, packed_blocks(w.total, p->c.dtype),
                             FD_CUDA_BLOCK, st, w.total, p->op, p->nan == CUDNN_PROPAGATE_NAN, ab,
                             a->a, bb, a->b, a->c, a->alpha1, a->alpha2, a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned blocks = fd_cuda_blocks(w.total, FD_CUDA_BLOCK);
    tensor_op_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(
        w, p->op, p->nan == CUDNN_PROPAGATE_NAN, p->a.dtype, p->c.dtype, a->a, a->b, a->c, a->alpha1,
        a->alpha2, a->beta);
    LAUNCHED("tensor_op_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_tensor_set_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return view_ok(&((const fd_tensor_set_problem_t *)problem)->y, "y", why, why_size);
}
extern "C" size_t fd_tensor_set_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_set_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_set_problem_t *p = (const fd_tensor_set_problem_t *)problem;
    const fd_tensor_set_args_t *a = (const fd_tensor_set_args_t *)args;
    sd_nd_t w;
    walker(&w, &p->y, NULL, 1);
    cudaStream_t st = a->handle->stream;
    if (packed_out(&w, &p->y, a->y)) {
        FD_CUDA_TYPED_LAUNCH(p->y.dtype, tensor_set_packed, packed_blocks(w.total, p->y.dtype),
                             FD_CUDA_BLOCK, st, w.total, a->y, a->value);
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned blocks = fd_cuda_blocks(w.total, FD_CUDA_BLOCK);
    tensor_set_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(w, p->y.dtype, a->y, a->value);
    LAUNCHED("tensor_set_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_tensor_scale_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return view_ok(&((const fd_tensor_scale_problem_t *)problem)->y, "y", why, why_size);
}
extern "C" size_t fd_tensor_scale_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_scale_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_scale_problem_t *p = (const fd_tensor_scale_problem_t *)problem;
    const fd_tensor_scale_args_t *a = (const fd_tensor_scale_args_t *)args;
    sd_nd_t w;
    walker(&w, &p->y, NULL, 1);
    cudaStream_t st = a->handle->stream;
    if (packed_out(&w, &p->y, a->y)) {
        FD_CUDA_TYPED_LAUNCH(p->y.dtype, tensor_scale_packed, packed_blocks(w.total, p->y.dtype),
                             FD_CUDA_BLOCK, st, w.total, a->y, a->alpha);
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned blocks = fd_cuda_blocks(w.total, FD_CUDA_BLOCK);
    tensor_scale_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(w, p->y.dtype, a->y, a->alpha);
    LAUNCHED("tensor_scale_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}

/* 1 when the transform maps every y index to the same x index (no fold, no pad, same dims,
 * plain lanes, one type): the packed add takes it when the layouts agree too. */
static int transform_is_copy(const fd_tensor_transform_problem_t *p)
{
    if (p->x.dtype != p->y.dtype || p->x.vect != 1 || p->y.vect != 1 ||
        p->x.nb_dims != p->y.nb_dims || p->y.nb_dims > FD_ND_DIMS)
        return 0;
    for (int i = 0; i < p->y.nb_dims; i++)
        if (p->x.dim[i] != p->y.dim[i] || p->pad_before[i] != 0 || p->fold[i] != 1)
            return 0;
    return 1;
}

/* 1 when view v is packed NCHW (`nhwc` 0) or NHWC (1) over its dims (N, C, spatial...): the
 * strides a dense tensor of that order has (a dim of extent 1 may have any stride). */
static int view_packed_as(const fd_tview_t *v, int nhwc)
{
    const int nb = v->nb_dims;
    int64_t st = nhwc ? v->dim[1] : 1;
    for (int i = nb - 1; i >= 2; i--) {
        if (v->dim[i] != 1 && v->stride[i] != st)
            return 0;
        st *= v->dim[i];
    }
    if (v->dim[1] != 1 && v->stride[1] != (nhwc ? 1 : st))
        return 0;
    /* st now spans the spatial dims, times C for NHWC (whose loop started at C) */
    return v->dim[0] == 1 || v->stride[0] == (nhwc ? st : st * v->dim[1]);
}

/* The transpose form of an NCHW <-> NHWC copy (transform_is_copy, 3 to 5 dims, alpha 1, beta 0):
 * 1 with rows x cols per image, else 0. */
static int transform_transpose(const fd_tensor_transform_problem_t *p, double alpha, double beta,
                               int64_t *rows, int64_t *cols)
{
    if (!transform_is_copy(p) || alpha != 1.0 || beta != 0.0 || p->y.nb_dims < 3)
        return 0;
    int64_t sp = 1;
    for (int i = 2; i < p->y.nb_dims; i++)
        sp *= p->y.dim[i];
    if (view_packed_as(&p->x, 0) && view_packed_as(&p->y, 1)) {
        *rows = p->y.dim[1], *cols = sp;
        return 1;
    }
    if (view_packed_as(&p->x, 1) && view_packed_as(&p->y, 0)) {
        *rows = sp, *cols = p->y.dim[1];
        return 1;
    }
    return 0;
}

/* K<U> (a transpose kernel) on the raw elements of y's size: K(x, y, the rest of its arguments);
 * in fd_tensor_transform_cuda_run's scope (p, a, st). */
#define XP_LAUNCH(K, GRID, BLOCK, ...)                                                             \
    do {                                                                                           \
        switch (fd_dtype_size(p->y.dtype)) {                                                       \
        case 1:                                                                                    \
            K<uint8_t><<<GRID, BLOCK, 0, st>>>((const uint8_t *)a->x, (uint8_t *)a->y,            \
                                               __VA_ARGS__);                                       \
            break;                                                                                 \
        case 2:                                                                                    \
            K<uint16_t><<<GRID, BLOCK, 0, st>>>((const uint16_t *)a->x, (uint16_t *)a->y,         \
                                                __VA_ARGS__);                                      \
            break;                                                                                 \
        case 4:                                                                                    \
            K<uint32_t><<<GRID, BLOCK, 0, st>>>((const uint32_t *)a->x, (uint32_t *)a->y,         \
                                                __VA_ARGS__);                                      \
            break;                                                                                 \
        default:                                                                                   \
            K<uint64_t><<<GRID, BLOCK, 0, st>>>((const uint64_t *)a->x, (uint64_t *)a->y,         \
                                                __VA_ARGS__);                                      \
            break;                                                                                 \
        }                                                                                          \
    } while (0)

extern "C" int fd_tensor_transform_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_tensor_transform_problem_t *p = (const fd_tensor_transform_problem_t *)problem;
    const fd_tview_t *v[2] = {&p->x, &p->y};
    for (int i = 0; i < 2; i++)
        if (!sd_dtype_ok(v[i]->dtype) || v[i]->nb_dims < 1 || v[i]->nb_dims > FD_DIM_MAX) {
            snprintf(why, why_size, "%s is %s with %d dims; the transform kernel takes FLOAT, "
                     "DOUBLE, HALF, BFLOAT16, INT8, UINT8, INT32, INT64 lanes, 1 to %d dims",
                     i ? "y" : "x", fd_dtype_name(v[i]->dtype), v[i]->nb_dims, FD_DIM_MAX);
            return 0;
        }
    return 1;
}
extern "C" size_t fd_tensor_transform_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_transform_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_transform_problem_t *p = (const fd_tensor_transform_problem_t *)problem;
    const fd_tensor_transform_args_t *a = (const fd_tensor_transform_args_t *)args;
    int64_t total = 1;
    for (int i = 0; i < p->y.nb_dims; i++)
        total *= p->y.dim[i];
    cudaStream_t st = a->handle->stream;
    if (transform_is_copy(p)) { /* y = alpha x + beta y element for element: an add */
        const fd_tview_t *ops[1] = {&p->x};
        sd_nd_t w;
        to_bcast_t xb;
        walker(&w, &p->y, ops, 2);
        if (packed_out(&w, &p->y, a->y) && walk_bcast(&w, 1, a->x, p->x.dtype, &xb) &&
            xb.div == 1 && xb.mod == w.total) {
            FD_CUDA_TYPED_LAUNCH(p->y.dtype, tensor_add_packed, packed_blocks(total, p->y.dtype),
                                 FD_CUDA_BLOCK, st, total, xb, a->x, a->y, a->alpha, a->beta);
            return CUDNN_STATUS_SUCCESS;
        }
    }
    int64_t rows, cols;
    if (transform_transpose(p, a->alpha, a->beta, &rows, &cols) && p->y.dim[0] <= 65535 &&
        fd_cuda_bw2_on()) {
        const int64_t vn = 16 / (int64_t)fd_dtype_size(p->y.dtype);
        const int64_t rt = (rows + XV_TILE - 1) / XV_TILE, ct = (cols + XV_TILE - 1) / XV_TILE;
        if (rows % vn == 0 && cols % vn == 0 && ((uintptr_t)a->x | (uintptr_t)a->y) % 16 == 0 &&
            rt * ct <= INT32_MAX) {
            const dim3 grid((unsigned)(rt * ct), (unsigned)p->y.dim[0]);
            if (fd_cuda_bw3_on()) {
                /* tensor_transpose_pipe: the blocks resident at its bound, at most a tile each */
                const int64_t tiles = rt * ct * (int64_t)p->y.dim[0];
                const int64_t cap = (int64_t)fd_cuda_sm_count() *
                                    XP_PIPE_MINB((int64_t)fd_dtype_size(p->y.dtype));
                const unsigned pg = (unsigned)(tiles < cap ? tiles : cap);
                XP_LAUNCH(tensor_transpose_pipe, pg, XV_THREADS, rows, cols, ct,
                          (int64_t)p->y.dim[0]);
                LAUNCHED("tensor_transpose_pipe", pg, st);
                return CUDNN_STATUS_SUCCESS;
            }
            XP_LAUNCH(tensor_transpose_vec, grid, XV_THREADS, rows, cols, ct);
            LAUNCHED("tensor_transpose_vec", grid.x, st);
            return CUDNN_STATUS_SUCCESS;
        }
    }
    if (transform_transpose(p, a->alpha, a->beta, &rows, &cols) && p->y.dim[0] <= 65535) {
        const int64_t rt = (rows + XP_TILE - 1) / XP_TILE, ct = (cols + XP_TILE - 1) / XP_TILE;
        if (rt * ct <= INT32_MAX) {
            const dim3 grid((unsigned)(rt * ct), (unsigned)p->y.dim[0]), block(XP_TILE, XP_ROWS);
            XP_LAUNCH(tensor_transpose_kernel, grid, block, rows, cols, ct);
            LAUNCHED("tensor_transpose_kernel", grid.x, st);
            return CUDNN_STATUS_SUCCESS;
        }
    }
    const unsigned blocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    tensor_transform_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(*p, total, a->x, a->y, a->alpha, a->beta);
    LAUNCHED("tensor_transform_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}
