/* SPDX-License-Identifier: MIT */
/*
 * softmax.cu - softmax forward and backward on the GPU (rows fd_softmax_fwd_cuda,
 * fd_softmax_bwd_cuda): FAST, ACCURATE and LOG (FAST computed as ACCURATE, as src/ref does),
 * INSTANCE and CHANNEL modes, 4-d and 5-d, any non-negative strides, exact in place (y == x,
 * dx == dy, dx == y); FLOAT, DOUBLE, HALF, BFLOAT16 with float accumulation (double for
 * DOUBLE). No workspace, no atomics, deterministic.
 *
 * The host splits the dims into row dims (INSTANCE: all but N; CHANNEL: C) and row-enumerating
 * dims, orders each set by the output's strides and merges runs contiguous in every tensor.
 * A row whose innermost element stride is 1 and that holds at least 32 elements (NCHW
 * INSTANCE, NHWC CHANNEL, classifier outputs) gets a block of its own with a fixed-order
 * reduction; otherwise (NCHW CHANNEL with a spatial extent, short rows) one thread walks each
 * row, so neighbouring threads read neighbouring rows' elements: coalesced either way. Rows
 * that would get a block of 32 threads (32 to 127 elements: NHWC CHANNEL with C = 64) run one
 * warp per row, eight rows to a block, with the same arithmetic (softmax_kernels.cuh).
 * FLOAT, HALF and BFLOAT16 rows that are one stride-1 run of 4 to 256 whole 16-byte vectors,
 * 16-byte aligned (NHWC CHANNEL up to C = 1024 floats / 2048 halves, NCHW INSTANCE of small
 * planes) take the rows-in-registers kernel first (softmax_wreg, forward and backward in one
 * text): 4 to 32 lanes a row with up to 4 vectors a lane where the row allows (NHWC C = 128
 * floats: 8 lanes x 4 float4; a warp a row with one vector a lane was 0.61x NVIDIA's rate,
 * the shuffles dominating), each row read once and written once with 128-bit accesses (the
 * block kernels read x three times), exp evaluated once per element. Their reduction order
 * differs from the block kernels' (per-lane partial, then a butterfly), so their last bits may
 * too: still deterministic and held to the ref within gm_tol. Of those, the calls of its LEAN
 * instantiations (not LOG, alpha 1, beta 0) whose rows are exactly 4, 8, 16 or 32 vectors (NHWC
 * C = 128 / 64 floats, 256 / 64 halves) take softmax_lean (FREEDNN_GPU_SM_LEAN2, default on):
 * one vector a lane, the grid covering the rows, 18-30 registers (full occupancy), the values of
 * softmax_wreg<L, 1> (its own grouping of the row's sum against the 16 x 2 / 8 x 4 shapes).
 * Backward rows walked by one thread (strided: NCHW CHANNEL) of up to 256 elements whose
 * pixels are stride 1, FLOAT / HALF / BFLOAT16, take softmax_bwd_cols: a block of channel
 * groups over 32 (HALF pairs: 64) pixels holds y and dy in registers, so each is read once
 * (softmax_bwd_rows read them twice from DRAM: 0.43-0.67x); the partial sums meet in shared
 * memory in a fixed order (its own rounding, within gm_tol); rows of 129 .. 256 as 16 groups
 * of 16 channels in blocks of 512 (softmax_bwd_cols16, FREEDNN_GPU_SM_BCG16: f16 C = 256
 * 1.19x on the H200, 2026-12-02). alpha 1, beta 0 stores the value
 * rounded once without the double blend (the same bits) in these kernels. Their calls with
 * alpha 1, beta 0 (every algo, CPT up to 16, at most 65535 outer indices, images of < 2^31
 * elements) take softmax_bwd_cols_lean: the same mapping, groups and bits, a block a tile, the
 * partials folded once a pixel, raw words held across the barriers, LOG a template argument,
 * 32-bit offsets, 36-64 registers (dev/softmax_nchw_bwd's v3, H200, 2026-12-03: f16
 * n32c256h56w56 1556 -> 4051 GB/s, f32 n32c128h56w56 2955 -> 4035, at the copy's rate);
 * FREEDNN_GPU_SM_BCOLS3=0 keeps them on softmax_bwd_cols / softmax_bwd_cols16.
 * Forward rows of the same kind (strided, up to 256 elements, pixels stride 1; FLOAT / HALF /
 * BFLOAT16; at most 65535 outer indices) take its twin softmax_fwd_cols: channel groups over
 * 32 (HALF / BFLOAT16 pairs: 64) pixels hold x, then exp(x - max), in registers, so x is read
 * once (softmax_fwd_rows_online: twice; f16 NCHW C = 64 ran 0.90x NVIDIA's rate), the max and
 * the sum meet in shared memory in a fixed order (its own rounding of the sum, within gm_tol),
 * the values those of softmax_wreg's forward; FREEDNN_GPU_SM_FCOLS=0 turns it off. Its calls
 * that are not LOG with alpha 1, beta 0 (FLOAT under FREEDNN_GPU_BW3's product) take
 * softmax_fwd_cols_lean: the same mapping and bits, the partials folded once a pixel, 16-bit x
 * held raw, 28-40 registers (dev/softmax_nchw's v3, H200, 2026-12-03: f16 n32c256h56w56
 * 1871 -> 3679 GB/s, f32 n32c128h56w56 1841 -> 3811); FREEDNN_GPU_SM_FCOLS3=0 keeps them on
 * softmax_fwd_cols' LEAN instantiation.
 * Other forward rows walked by one thread (strided: NCHW CHANNEL) of at least 32 elements in
 * one collapsed dim, FLOAT / HALF / BFLOAT16, take softmax_fwd_rows_online: max and sum in one
 * pass (the sum rescaled when the max grows), then the write: x read twice, not three times
 * from DRAM; the rescaling rounds differently (within gm_tol), NaN / inf rows as the ref.
 */
#include <stdio.h>
#include <string.h>

#include "elem.cuh"
#include "fd_cuda.cuh"

extern "C" {
#include "../core/softmax.h"
}

#include <math_constants.h>

#define SM_TENSORS 3 /* forward x, y; backward y, dy, dx */
#define SM_DIMS 4    /* at most 4 row dims (INSTANCE, 5-d) and 4 row-enumerating dims */

typedef struct {
    int is_log;
    int nr, no; /* collapsed row dims, collapsed row-enumerating dims (innermost last) */
    int64_t rdim[SM_DIMS], odim[SM_DIMS];
    int64_t rst[SM_TENSORS][SM_DIMS], ost[SM_TENSORS][SM_DIMS];
    int64_t row_len, rows;
    int mul_inv; /* softmax_wreg forward, FLOAT: e * (1 / s) instead of e / s (FREEDNN_GPU_BW3) */
} sm_geom_t;

extern "C" int fd_cuda_bw3_on(void); /* pooling.cu: FREEDNN_GPU_BW3, read once */

/* Offset of element r of a row in tensor t, relative to the row's base. */
static __device__ __forceinline__ int64_t sm_inner(const sm_geom_t &g, int t, int64_t r)
{
    if (g.nr == 1)
        return r * g.rst[t][0];
    int64_t off = 0;
    for (int d = g.nr - 1; d >= 0; d--) {
        off += (r % g.rdim[d]) * g.rst[t][d];
        r /= g.rdim[d];
    }
    return off;
}

/* Base offsets of row `row` in every tensor. */
static __device__ __forceinline__ void sm_outer(const sm_geom_t &g, int64_t row, int64_t *base)
{
    for (int t = 0; t < SM_TENSORS; t++)
        base[t] = 0;
    for (int d = g.no - 1; d >= 0; d--) {
        const int64_t i = row % g.odim[d];
        row /= g.odim[d];
        for (int t = 0; t < SM_TENSORS; t++)
            base[t] += i * g.ost[t][d];
    }
}

/* p[i] = v rounded once to the storage type: fd_cuda_blend's result for alpha 1, beta 0 (the
 * double product 1 * v is v; double -> half / bfloat16 and float -> half / bfloat16 both round
 * the same value to nearest even), without its two float <-> double conversions. The
 * kernels that use it take FLOAT, HALF and BFLOAT16. */
static __device__ __forceinline__ void sm_st_acc(float *p, int i, float v)
{
    p[i] = v;
}
static __device__ __forceinline__ __attribute__((unused)) void sm_st_acc(double *p, int i,
                                                                         double v)
{
    p[i] = v; /* bound in the DOUBLE stamp of the templates, never instantiated there */
}
static __device__ __forceinline__ void sm_st_acc(__half *p, int i, float v)
{
    p[i] = __float2half_rn(v);
}
static __device__ __forceinline__ void sm_st_acc(__nv_bfloat16 *p, int i, float v)
{
    p[i] = __float2bfloat16_rn(v);
}

/* sm_word_of<N>::t: the unsigned integer of N bytes, so a group of PV elements (HALF pairs) is
 * stored as one access. */
template <int N>
struct sm_word_of;
template <>
struct sm_word_of<2> {
    typedef unsigned short t;
};
template <>
struct sm_word_of<4> {
    typedef unsigned int t;
};

/* ---- softmax_fwd_cols_lean's raw words (softmax_kernels.cuh) ------------------------------
 * PV pixels of one channel held as the word sm_word_of<PV * size> (FLOAT: the float's bits;
 * 16-bit types: one element or a pair), the storage type chosen by a null tag pointer (the
 * words of FLOAT and of 16-bit pairs are both 32-bit). The max runs on the raw elements (exact:
 * widening is exact and monotone) and turns NaN into NaN (max.NaN: softmax_fwd_cols' sm_max up
 * to a NaN's payload, which no output shows apart); pairs are rounded by one cvt of two. */
static __device__ __forceinline__ unsigned sm_raw_max(const float *, unsigned a, unsigned b)
{
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b)));
    return __float_as_uint(r);
}
static __device__ __forceinline__ unsigned short sm_raw_max(const __half *, unsigned short a,
                                                            unsigned short b)
{
    return __half_as_ushort(__hmax_nan(__ushort_as_half(a), __ushort_as_half(b)));
}
static __device__ __forceinline__ unsigned sm_raw_max(const __half *, unsigned a, unsigned b)
{
    __half2 u, v;
    memcpy(&u, &a, 4);
    memcpy(&v, &b, 4);
    u = __hmax2_nan(u, v);
    memcpy(&a, &u, 4);
    return a;
}
static __device__ __forceinline__ unsigned short sm_raw_max(const __nv_bfloat16 *, unsigned short a,
                                                            unsigned short b)
{
    return __bfloat16_as_ushort(__hmax_nan(__ushort_as_bfloat16(a), __ushort_as_bfloat16(b)));
}
static __device__ __forceinline__ unsigned sm_raw_max(const __nv_bfloat16 *, unsigned a, unsigned b)
{
    __nv_bfloat162 u, v;
    memcpy(&u, &a, 4);
    memcpy(&v, &b, 4);
    u = __hmax2_nan(u, v);
    memcpy(&a, &u, 4);
    return a;
}

/* -inf in every element of the word */
static __device__ __forceinline__ void sm_raw_ninf(const float *, unsigned *w)
{
    *w = 0xff800000u;
}
static __device__ __forceinline__ void sm_raw_ninf(const __half *, unsigned short *w)
{
    *w = 0xfc00u;
}
static __device__ __forceinline__ void sm_raw_ninf(const __half *, unsigned *w)
{
    *w = 0xfc00fc00u;
}
static __device__ __forceinline__ void sm_raw_ninf(const __nv_bfloat16 *, unsigned short *w)
{
    *w = 0xff80u;
}
static __device__ __forceinline__ void sm_raw_ninf(const __nv_bfloat16 *, unsigned *w)
{
    *w = 0xff80ff80u;
}

/* the word's elements widened to float (exact) */
static __device__ __forceinline__ void sm_raw_wide(const float *, unsigned w, float *f)
{
    f[0] = __uint_as_float(w);
}
static __device__ __forceinline__ void sm_raw_wide(const __half *, unsigned short w, float *f)
{
    f[0] = __half2float(__ushort_as_half(w));
}
static __device__ __forceinline__ void sm_raw_wide(const __half *, unsigned w, float *f)
{
    __half2 h;
    memcpy(&h, &w, 4);
    const float2 t = __half22float2(h);
    f[0] = t.x, f[1] = t.y;
}
static __device__ __forceinline__ void sm_raw_wide(const __nv_bfloat16 *, unsigned short w,
                                                   float *f)
{
    f[0] = __bfloat162float(__ushort_as_bfloat16(w));
}
static __device__ __forceinline__ void sm_raw_wide(const __nv_bfloat16 *, unsigned w, float *f)
{
    __nv_bfloat162 h;
    memcpy(&h, &w, 4);
    const float2 t = __bfloat1622float2(h);
    f[0] = t.x, f[1] = t.y;
}

/* the word of f rounded once to nearest even (sm_st_acc's rounding, a pair in one cvt) */
static __device__ __forceinline__ void sm_raw_narrow(const float *, unsigned *w, const float *f)
{
    *w = __float_as_uint(f[0]);
}
static __device__ __forceinline__ void sm_raw_narrow(const __half *, unsigned short *w,
                                                     const float *f)
{
    *w = __half_as_ushort(__float2half_rn(f[0]));
}
static __device__ __forceinline__ void sm_raw_narrow(const __half *, unsigned *w, const float *f)
{
    const __half2 h = __floats2half2_rn(f[0], f[1]);
    memcpy(w, &h, 4);
}
static __device__ __forceinline__ void sm_raw_narrow(const __nv_bfloat16 *, unsigned short *w,
                                                     const float *f)
{
    *w = __bfloat16_as_ushort(__float2bfloat16_rn(f[0]));
}
static __device__ __forceinline__ void sm_raw_narrow(const __nv_bfloat16 *, unsigned *w,
                                                     const float *f)
{
    const __nv_bfloat162 h = __floats2bfloat162_rn(f[0], f[1]);
    memcpy(w, &h, 4);
}

/* exp(d), d = x - max: the bits of softmax_fwd_cols' sm_exp_fwd. FLOAT: expf. BFLOAT16:
 * __expf as written (ex2.approx without .ftz: a result below 2^-126 stays a float denormal,
 * and bfloat16 has denormals down to 2^-133, so it can reach an output). HALF: __expf's own
 * product by log2 e (0x3FB8AA3B, CUDA 13) into ex2.approx.ftz, without the denormal fix-up of
 * the plain ex2.approx (3 instructions): the two differ only where the result is below 2^-126,
 * and there the output rounds to +0 in half either way (times 1 / sum <= 1; half's smallest
 * denormal is 2^-24) while the sum, which reaches >= 1 (the max's own exp is exactly 1),
 * absorbs it (dev/softmax_nchw: bit-identical on the underflow column). */
static __device__ __forceinline__ float sm_fcols_exp(const float *, float d)
{
    return expf(d);
}
static __device__ __forceinline__ float sm_fcols_exp(const __nv_bfloat16 *, float d)
{
    return __expf(d);
}
static __device__ __forceinline__ float sm_fcols_exp(const __half *, float d)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(__fmul_rn(d, __int_as_float(0x3FB8AA3B))));
    return r;
}

/* softmax_fwd_cols_lean<CPT, PV>'s blocks of 512 threads an SM on storage T (the minimum of its
 * __launch_bounds__): 3 at CPT 16 (40 registers), 4 below (32); BFLOAT16 pairs at CPT 16 2
 * (64 registers): __expf's denormal fix-up (sm_fcols_exp) made them spill 16 bytes at 40 on
 * sm_90 (ptxas -v, CUDA 13). */
template <typename T, int CPT, int PV> struct sm_fcols_lean_minb {
    enum { v = CPT == 16 ? 3 : 4 };
};
template <> struct sm_fcols_lean_minb<__nv_bfloat16, 16, 2> {
    enum { v = 2 };
};

/* 1 / s rounded to nearest, s a row sum of exps (in [1, 256]: the max's own exp is 1, C <= 256;
 * or NaN): the fast path of the compiler's rcp.rn.f32 (MUFU.RCP, then r + r (1 - s r) by two
 * FMAs), taken for every s whose exponent field is not 0, 253, 254 or 255, so these s get its
 * bits (NaN gives NaN); its slow path, a CALL whose ABI costs registers, is left out. */
static __device__ __forceinline__ float sm_rcp_sum(float s)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    return fmaf(r, -fmaf(s, r, -1.0f), r);
}

/* ---- softmax_bwd_cols_lean's helpers (softmax_kernels.cuh) ----------------------------------
 * An empty asm the compiler must take as rewriting its operand: the floats widened from a raw
 * word before it cannot be reused after it, so across the kernel's barriers the raw words are
 * held (half the registers of the floats for 16-bit pairs) and widened again; on a pointer, the
 * channel rows' addresses are formed one at a time instead of all 2 CPT of them up front. */
static __device__ __forceinline__ void sm_raw_opaque(unsigned short &w)
{
    asm volatile("" : "+h"(w));
}
static __device__ __forceinline__ void sm_raw_opaque(unsigned &w)
{
    asm volatile("" : "+r"(w));
}

/* The groups' partial sums of a tile, [pixel][group] with a stride of NGM + 1 (the folding
 * thread's walk is conflict-free), and each pixel's folded sum. */
template <int PV, int NGM> struct sm_bcols_lean_sh {
    float red[32 * PV * (NGM + 1)];
    float fin[32 * PV] __attribute__((aligned(8)));
};

/* softmax_bwd_cols_lean<CPT, PV, NGM>'s blocks of 32 NGM threads an SM (its __launch_bounds__
 * minimum): registers capped at 64 for CPT 16 (NGM 16: 2 blocks of 512; NGM 8: 4 of 256) and at
 * 40 below (6 blocks of 256), dev/softmax_nchw_bwd's v3. */
template <int CPT, int NGM> struct sm_bcols_lean_minb {
    enum { v = 65536 / (32 * NGM * (CPT == 16 ? 64 : 40)) };
};

/* ---- the kernels, once per storage type --------------------------------------------------- */

#define FD_STAMP_FILE "softmax_kernels.cuh"
#include "stamp_types.cuh"

/* ---- host: split and collapse the dims ---------------------------------------------------- */

/* The dims in `dims` (count m, outermost first by the key tensor's strides after sorting),
 * merged where contiguous in all nt tensors; out: count, sizes, strides per tensor. */
static int collapse(const struct cudnnTensorStruct *const *t, int nt, int key, const int *dims,
                    int m, int64_t *dim, int64_t (*st)[SM_DIMS])
{
    int order[SM_DIMS], k = 0;
    for (int i = 0; i < m; i++)
        if (t[0]->dim[dims[i]] != 1)
            order[k++] = dims[i];
    for (int i = 1; i < k; i++) { /* stable, largest key stride first */
        int v = order[i], j = i;
        while (j > 0 && t[key]->stride[order[j - 1]] < t[key]->stride[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    int n = 0;
    for (int i = 0; i < k; i++) {
        const int d = order[i];
        const int64_t size = t[0]->dim[d];
        int merge = n > 0;
        for (int j = 0; j < nt && merge; j++)
            merge = (int64_t)t[j]->stride[d] * size == st[j][n - 1];
        if (merge) {
            dim[n - 1] *= size;
            for (int j = 0; j < nt; j++)
                st[j][n - 1] = t[j]->stride[d];
        } else {
            dim[n] = size;
            for (int j = 0; j < nt; j++)
                st[j][n] = t[j]->stride[d];
            n++;
        }
    }
    if (n == 0) { /* every dim of the set is 1 */
        dim[0] = 1;
        for (int j = 0; j < nt; j++)
            st[j][0] = 0;
        n = 1;
    }
    return n;
}

static sm_geom_t geom_of(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                         const struct cudnnTensorStruct *const *t, int nt, int key)
{
    sm_geom_t g;
    memset(&g, 0, sizeof g);
    g.is_log = algo == CUDNN_SOFTMAX_LOG;
    int rd[FD_DIM_MAX], od[FD_DIM_MAX], nr = 0, no = 0;
    for (int d = 0; d < t[0]->nb_dims; d++) {
        const int in_row = mode == CUDNN_SOFTMAX_MODE_CHANNEL ? d == 1 : d >= 1;
        if (in_row)
            rd[nr++] = d;
        else
            od[no++] = d;
    }
    g.nr = collapse(t, nt, key, rd, nr, g.rdim, g.rst);
    g.no = collapse(t, nt, key, od, no, g.odim, g.ost);
    g.row_len = 1;
    g.rows = 1;
    for (int i = 0; i < g.nr; i++)
        g.row_len *= g.rdim[i];
    for (int i = 0; i < g.no; i++)
        g.rows *= g.odim[i];
    return g;
}

/* Block size of the block-per-row kernels, 0 for the thread-per-row ones. */
static unsigned block_threads(const sm_geom_t *g, int key)
{
    if (g->row_len < 32 || g->rst[key][g->nr - 1] != 1)
        return 0;
    unsigned t = 32;
    while (t < 512 && (int64_t)t * 4 < g->row_len)
        t *= 2;
    return t;
}

/* ---- rows in registers (softmax_kernels.cuh, softmax_wreg) ---------------------------------- */

/* The FLOAT forward of softmax_wreg's LEAN instantiations (not LOG, alpha 1, beta 0: sm_lean_ok
 * takes FLOAT forwards only under this switch) with exp(x - max) from the SFU, __expf, as the
 * 16-bit types already do; blended FLOAT forwards keep expf in the generic instantiation.
 * x - max <= 0, so the error is at most 2^-22 relative plus |x - max| 2^-24 from the
 * argument's scaling, and after the division by the sum (>= 1) at most
 * (4 y + 1 / e) 2^-24 absolute in y (t e^-t <= 1 / e), inside gm_tol's (36 + 2 C) 2^-24 for any
 * C; product decision of 2026-12-01 (docs/testing.md's cuda softmax row). expf's range
 * reduction was ~10 instructions an element of the row (f32 NHWC ran 0.93x NVIDIA's rate at
 * C = 128). FREEDNN_GPU_SM_FASTEXP=0 keeps expf (FLOAT forwards then take the generic
 * instantiation); read once. */
static int sm_fast_exp(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_SM_FASTEXP");
    return on;
}

/* The (lanes per row, vectors per lane) shapes stamped. */
#define SM_WREG_SHAPES(X)                                                                      \
    X(4, 1) X(4, 2) X(4, 4) X(8, 4) X(16, 4) X(32, 4) X(32, 8) X(4, 8) X(16, 2) X(32, 1)

/* FREEDNN_GPU_SM_WREG=L,N: every softmax_wreg call in shape (L lanes, N vectors) where that is
 * stamped and holds the row (the A/B of shapes on the H200; unset: sm_wreg_shape's rule);
 * read once. */
static int sm_wreg_forced_env(void)
{
    const char *e = getenv("FREEDNN_GPU_SM_WREG");
    int l = 0, n = 0;
    if (e == NULL || sscanf(e, "%d,%d", &l, &n) != 2)
        return 0;
    switch (l * 16 + n) {
#define SM_WREG_KNOWN(L, N)                                                                    \
    case L * 16 + N:                                                                           \
        return L * 16 + N;
        SM_WREG_SHAPES(SM_WREG_KNOWN)
#undef SM_WREG_KNOWN
    default:
        return 0;
    }
}
static int sm_wreg_forced(void)
{
    static const int f = sm_wreg_forced_env();
    return f;
}

/* Lanes per row (0: the path does not serve the call) and *nv, vectors per lane: FLOAT, HALF,
 * BFLOAT16; each tensor's row one stride-1 run of whole 16-byte vectors, its rows 16-byte
 * aligned; 4 to 256 vectors a row. Four vectors a lane where the row has them (fewer
 * shuffles per element and 64 B of loads in flight a lane): rows of 4 to 16 vectors take 4
 * lanes x 1, 2 or 4; 17 to 128 take 8, 16 or 32 lanes x 4; longer ones 32 x 8. FLOAT rows of
 * 17 to 32 vectors take 16 x 2: the LEAN forward then holds 34 registers, 7 blocks an SM, as
 * NVIDIA's kernel runs that row (16 threads a row, 80% of the warps resident); H200,
 * 2026-12-01, f32 NHWC n32c128h56w56 forward in one run: 16 x 2 0.99x NVIDIA's rate, 8 x 4
 * 0.96x, backward 0.99x both; HALF's C = 256 (32 vectors) ran 1.12x at 8 x 4 and 1.04x at 16 x 2,
 * so the 16-bit types keep 8 x 4. */
static int sm_wreg_shape(const sm_geom_t *g, cudnnDataType_t dt, const void *const *ptr, int nt,
                         int *nv)
{
    if (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16)
        return 0;
    const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt);
    if (g->nr != 1 || g->row_len % vec != 0)
        return 0;
    for (int t = 0; t < nt; t++) {
        if (!fd_cuda_aligned16(ptr[t]) || (g->row_len > 1 && g->rst[t][0] != 1))
            return 0;
        for (int d = 0; d < g->no; d++)
            if (g->odim[d] > 1 && g->ost[t][d] % vec != 0)
                return 0;
    }
    const int64_t rv = g->row_len / vec;
    if (rv < 4 || rv > 32 * 8)
        return 0;
    int lpr, n;
    if (rv <= 16) {
        lpr = 4;
        n = 1;
        while (4 * n < rv)
            n *= 2;
    } else if (rv <= 32 && dt == CUDNN_DATA_FLOAT) {
        lpr = 16; /* 16 x 2 (FLOAT rows of 17 to 32 vectors, e.g. C = 128) */
        n = 2;
    } else if (rv <= 128) {
        n = 4;
        lpr = 8;
        while (lpr * 4 < rv)
            lpr *= 2;
    } else {
        lpr = 32;
        n = 8;
    }
    const int f = sm_wreg_forced();
    if (f && (int64_t)(f / 16) * (f % 16) >= rv) {
        lpr = f / 16;
        n = f % 16;
    }
    *nv = n;
    return lpr;
}

/* FREEDNN_GPU_SM_LEAN=0: softmax_wreg without its LEAN instantiations (the A/B); read once. */
static int sm_lean(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_SM_LEAN");
    return on;
}

/* 1 when softmax_wreg's LEAN instantiation (and softmax_lean) computes the call's values: not
 * LOG, alpha 1 and beta 0, and a forward's exp and division already the SFU's and the product
 * (16-bit types; FLOAT under sm_fast_exp and g.mul_inv). */
static int sm_lean_values(const sm_geom_t &g, cudnnDataType_t dt, int bwd, double alpha,
                          double beta)
{
    if (g.is_log || alpha != 1.0 || beta != 0.0)
        return 0;
    return bwd || dt != CUDNN_DATA_FLOAT || (sm_fast_exp() && g.mul_inv);
}
static int sm_lean_ok(const sm_geom_t &g, cudnnDataType_t dt, int bwd, double alpha, double beta)
{
    return sm_lean() && sm_lean_values(g, dt, bwd, alpha, beta);
}

/* softmax_wreg<L, N, B, E> on dt's storage type */
#define SM_WREG_TYPED(L, N, B, E)                                                              \
    do {                                                                                       \
        if (dt == CUDNN_DATA_FLOAT)                                                            \
            softmax_wreg_f32<L, N, B, E>                                                       \
                <<<blocks, FD_CUDA_BLOCK, 0, stream>>>(g, a, b, o, alpha, beta);               \
        else if (dt == CUDNN_DATA_HALF)                                                        \
            softmax_wreg_f16<L, N, B, E>                                                       \
                <<<blocks, FD_CUDA_BLOCK, 0, stream>>>(g, a, b, o, alpha, beta);               \
        else                                                                                   \
            softmax_wreg_bf16<L, N, B, E>                                                      \
                <<<blocks, FD_CUDA_BLOCK, 0, stream>>>(g, a, b, o, alpha, beta);               \
    } while (0)

/* Launches softmax_wreg in shape (lpr, nv): forward (bwd 0) a = x, o = y; backward a = y,
 * b = dy, o = dx. */
static cudnnStatus_t sm_wreg_launch(cudnnDataType_t dt, int lpr, int nv, int bwd,
                                    const sm_geom_t &g, const void *a, const void *b, void *o,
                                    double alpha, double beta, cudaStream_t stream)
{
    const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK / lpr);
    const int lean = sm_lean_ok(g, dt, bwd, alpha, beta);
    switch (lpr * 16 + nv) {
#define SM_WREG_CASE(L, N)                                                                     \
    case L * 16 + N:                                                                           \
        if (bwd && lean)                                                                       \
            SM_WREG_TYPED(L, N, 1, true);                                                      \
        else if (bwd)                                                                          \
            SM_WREG_TYPED(L, N, 1, false);                                                     \
        else if (lean)                                                                         \
            SM_WREG_TYPED(L, N, 0, true);                                                      \
        else                                                                                   \
            SM_WREG_TYPED(L, N, 0, false);                                                     \
        break;
        SM_WREG_SHAPES(SM_WREG_CASE)
#undef SM_WREG_CASE
    default:
        return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,
                        "softmax: no register shape %d x %d", lpr, nv);
    }
    FD_CUDA_LAUNCHED("softmax_wreg (%s%s) on %s data (%u blocks, %d lanes x %d vectors a row)",
                     bwd ? "backward" : "forward", lean ? ", lean" : "", fd_dtype_name(dt), blocks,
                     lpr, nv);
    return CUDNN_STATUS_SUCCESS;
}
#undef SM_WREG_TYPED

/* ---- lean rows: one vector a lane (softmax_kernels.cuh, softmax_lean) ----------------------- */

/* FREEDNN_GPU_SM_LEAN2: 1 (default) softmax_lean for the rows sm_lean2_lanes takes but the
 * forward rows of 32 vectors, 2 the same with streaming stores (st.global.cs), 3 every row it
 * takes (the 32-vector forward too), 0 today's choice (softmax_wreg); read once. A forced
 * FREEDNN_GPU_SM_WREG shape wins over it (the shapes' A/B). On the H200 (2026-12-02,
 * docs/perf/gpu-membw-2026-12-02.md, eighteenth session, call 2) softmax_lean ran every
 * backward row faster (f32 C 128 4065 -> 4128 GB/s, C 64 3998 -> 4132; f16 C 256 4011 -> 4122)
 * and the forward of 4 to 16 vectors a row (f32 C 64 3648 -> 3781, f16 C 64 3239 -> 3289), but
 * lost the 32-vector forward (f32 C 128 3777 -> 3707, f16 C 256 3262 -> 3133): those stay on
 * softmax_wreg by default. */
static int sm_lean2(void)
{
    static const int v = (int)fd_env_long("FREEDNN_GPU_SM_LEAN2", 0, 3, 1);
    return v;
}

/* Lanes a row of softmax_lean for the call (0: the kernel does not serve it): sm_lean_values'
 * calls on FLOAT, HALF, BFLOAT16 whose row is one stride-1 run of exactly 4, 8, 16 or 32
 * 16-byte vectors and whose rows are one collapsed dim (a stride of whole vectors apart in every
 * tensor), the pointers 16-byte aligned (the cases softmax_wreg takes in 4 x 1, 4 x 2, 4 x 4,
 * 16 x 2 or 8 x 4); a grid of fewer than 2^31 blocks. nt: the tensors (forward x, y; backward
 * y, dy, dx). */
static int sm_lean2_lanes(const sm_geom_t &g, cudnnDataType_t dt, int bwd, double alpha,
                          double beta, const void *const *ptr, int nt)
{
    if (!sm_lean2() || sm_wreg_forced() || !sm_lean_values(g, dt, bwd, alpha, beta))
        return 0;
    if (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16)
        return 0;
    const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt);
    if (g.nr != 1 || g.no != 1 || g.row_len % vec != 0)
        return 0;
    const int64_t rv = g.row_len / vec;
    if ((rv != 4 && rv != 8 && rv != 16 && rv != 32) || (rv == 32 && !bwd && sm_lean2() != 3))
        return 0;
    for (int t = 0; t < nt; t++)
        if (!fd_cuda_aligned16(ptr[t]) || g.rst[t][0] != 1 ||
            (g.odim[0] > 1 && g.ost[t][0] % vec != 0))
            return 0;
    if ((g.rows * rv + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK >= INT32_MAX)
        return 0;
    return (int)rv;
}

/* Launches softmax_lean<lanes, bwd>: forward a = x, o = y; backward a = y, b = dy, o = dx. */
static cudnnStatus_t sm_lean2_launch(cudnnDataType_t dt, int lanes, int bwd, const sm_geom_t &g,
                                     const void *a, const void *b, void *o, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((g.rows * lanes + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK);
    const int64_t sa = g.ost[0][0], sb = g.ost[1][0], so = g.ost[bwd ? 2 : 1][0];
    const int cs = sm_lean2() == 2;
    switch (lanes * 2 + bwd) {
#define SM_LEAN2_CASE(L, B)                                                                    \
    case L * 2 + B:                                                                            \
        if (dt == CUDNN_DATA_FLOAT)                                                            \
            softmax_lean_f32<L, B>                                                             \
                <<<blocks, FD_CUDA_BLOCK, 0, stream>>>(g.rows, sa, sb, so, a, b, o, cs);       \
        else if (dt == CUDNN_DATA_HALF)                                                        \
            softmax_lean_f16<L, B>                                                             \
                <<<blocks, FD_CUDA_BLOCK, 0, stream>>>(g.rows, sa, sb, so, a, b, o, cs);       \
        else                                                                                   \
            softmax_lean_bf16<L, B>                                                            \
                <<<blocks, FD_CUDA_BLOCK, 0, stream>>>(g.rows, sa, sb, so, a, b, o, cs);       \
        break;
        SM_LEAN2_CASE(4, 0)
        SM_LEAN2_CASE(4, 1)
        SM_LEAN2_CASE(8, 0)
        SM_LEAN2_CASE(8, 1)
        SM_LEAN2_CASE(16, 0)
        SM_LEAN2_CASE(16, 1)
        SM_LEAN2_CASE(32, 0)
        SM_LEAN2_CASE(32, 1)
#undef SM_LEAN2_CASE
    default:
        return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,
                        "softmax: no lean shape of %d lanes", lanes);
    }
    FD_CUDA_LAUNCHED("softmax_lean<%d> (%s%s) on %s data (%u blocks)", lanes,
                     bwd ? "backward" : "forward", cs ? ", streaming stores" : "",
                     fd_dtype_name(dt), blocks);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- backward, strided rows (softmax_kernels.cuh, softmax_bwd_cols) -------------------------- */

/* 1 when the rows are the strided rows of softmax_bwd_cols / softmax_fwd_cols: FLOAT, HALF,
 * BFLOAT16; the row one collapsed dim of at most SM_COLS_ROW_MAX = 256 elements (any
 * stride); the innermost row-enumerating dim stride 1 in every tensor and at least 16 long
 * (the pixels of NCHW). */
static int sm_cols_geom(const sm_geom_t *g, cudnnDataType_t dt)
{
    if (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16)
        return 0;
    const int in = g->no - 1;
    if (g->nr != 1 || g->row_len > SM_COLS_ROW_MAX || g->odim[in] < 16)
        return 0;
    for (int t = 0; t < SM_TENSORS; t++)
        if (g->ost[t][in] != 1)
            return 0;
    return 1;
}

/* 1 when every tensor's pixel pairs are one 32-bit access (16-bit data): an even pixel count,
 * 4-byte aligned pointers, even channel and outer strides. */
static int sm_cols_pairs(const sm_geom_t *g, const void *const *ptr)
{
    const int in = g->no - 1;
    int ok = g->odim[in] % 2 == 0;
    for (int t = 0; t < SM_TENSORS; t++) {
        ok = ok && ((uintptr_t)ptr[t] & 3) == 0 && g->rst[t][0] % 2 == 0;
        for (int d = 0; d < in; d++)
            ok = ok && (g->odim[d] == 1 || g->ost[t][d] % 2 == 0);
    }
    return ok;
}

/* FREEDNN_GPU_SM_BCG16=0: softmax_bwd_cols back on its first shapes (at most 8 channel groups,
 * CPT up to 32); read once. */
static int sm_bcg16(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_SM_BCG16");
    return on;
}

/* Channels per thread of softmax_bwd_cols (0: the path does not serve the call), *pv pixels
 * per lane and *cg channel groups (warps a block), for sm_cols_geom's rows. HALF takes PV 2 (a
 * 32-bit access a lane) where sm_cols_pairs allows it. Rows of up to 128 channels: the smallest
 * CPT of 2 .. 16 with at most 8 groups (C = 128: 16 x 8). Rows of 129 .. 256: CPT 16, 9 .. 16
 * groups, softmax_bwd_cols16's 512 threads (2026-12-02; 86 registers for HALF pairs). Before
 * (FREEDNN_GPU_SM_BCG16=0) those were CPT 32 x 8: 123 registers for HALF pairs, 24% occupancy
 * and ncu's top stall no_instruction (the unrolled body outgrew the instruction cache; f16
 * n32c256h56w56 1289 -> 1539 GB/s on the H200 with the new shape), and BFLOAT16 and HALF with
 * PV 1 took softmax_bwd_rows there (CPT 32 one element at a time spills: ptxas -v). */
static int sm_cols_shape(const sm_geom_t *g, cudnnDataType_t dt, const void *const *ptr, int *pv,
                         int *cg)
{
    if (!sm_cols_geom(g, dt))
        return 0;
    *pv = dt == CUDNN_DATA_HALF && sm_cols_pairs(g, ptr) ? 2 : 1;
    const int64_t C = g->row_len;
    int cpt = 2;
    if (sm_bcg16() && C > 8 * 16) {
        cpt = 16; /* 9 .. 16 groups: softmax_bwd_cols16 */
    } else {
        while (cpt < 32 && (C + cpt - 1) / cpt > 8)
            cpt *= 2;
    }
    *cg = (int)((C + cpt - 1) / cpt);
    if (dt != CUDNN_DATA_FLOAT && *pv == 1 && cpt > 16)
        return 0; /* 32 16-bit channels a thread one by one spill registers (ptxas -v) */
    return cpt;
}

/* 16-bit data one element a lane stops at CPT 16 (sm_cols_shape): CPT 32 is never launched
 * there, so it is not stamped either (it spills). */
#define SM_COLS_CPT1(CPT) ((CPT) > 16 ? 16 : (CPT))

/* FREEDNN_GPU_SM_BCOLS3=0: softmax_bwd_cols / softmax_bwd_cols16 instead of
 * softmax_bwd_cols_lean (the A/B; the same bits); read once. */
static int sm_bcols3(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_SM_BCOLS3");
    return on;
}

/* 1 when softmax_bwd_cols_lean serves a call of sm_cols_shape's: alpha 1 and beta 0 (any algo),
 * CPT at most 16 (CPT 32, FREEDNN_GPU_SM_BCG16=0's shape of 129-256 channels, is not stamped),
 * at most 65535 outer indices (a block a tile: grid y) and the image of an outer index (C
 * channels over S pixels plus a tile's overhang) below 2^31 elements in y, dy and dx: its
 * offsets inside it are 32-bit. */
static int sm_bcols_lean_ok(const sm_geom_t &g, int cpt, double alpha, double beta)
{
    if (!sm_bcols3() || alpha != 1.0 || beta != 0.0 || cpt > 16)
        return 0;
    const int64_t S = g.odim[g.no - 1];
    if (g.rows / S > 65535)
        return 0;
    for (int t = 0; t < SM_TENSORS; t++)
        if ((g.row_len - 1) * g.rst[t][0] + S + 64 > INT32_MAX)
            return 0;
    return 1;
}

/* Launches softmax_bwd_cols_lean<cpt, pv, 8 or 16 groups at most, LOG> with (32, cg) blocks,
 * a block a tile. */
static cudnnStatus_t sm_bcols_lean_launch(cudnnDataType_t dt, int cpt, int pv, int cg,
                                          const sm_geom_t &g, const void *y, const void *dy,
                                          void *dx, cudaStream_t stream)
{
    const int64_t S = g.odim[g.no - 1];
    const dim3 blocks((unsigned)((S + 32 * pv - 1) / (32 * pv)), (unsigned)(g.rows / S));
    const dim3 threads(32, (unsigned)cg);
    const int ys = (int)g.rst[0][0], gs = (int)g.rst[1][0], xs = (int)g.rst[2][0], np = (int)S;
    const int ngm = cg > 8 ? 16 : 8;
    if (ngm == 16 && cpt != 16)
        return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,
                        "softmax: no column shape %d x %d", cpt, cg);
    switch (cpt * 32 + ngm * 2 + g.is_log) {
#define SM_BCOLS_LEAN_TYPED(SFX, CPT, PV, NGM, L)                                                  \
    softmax_bwd_cols_lean_##SFX<CPT, PV, NGM, L>                                                   \
        <<<blocks, threads, 0, stream>>>(g, y, dy, dx, ys, gs, xs, np)
#define SM_BCOLS_LEAN_CASE(CPT, NGM, L)                                                            \
    case CPT * 32 + NGM * 2 + L:                                                                   \
        if (dt == CUDNN_DATA_FLOAT)                                                                \
            SM_BCOLS_LEAN_TYPED(f32, CPT, 1, NGM, L);                                              \
        else if (dt == CUDNN_DATA_HALF && pv == 2)                                                 \
            SM_BCOLS_LEAN_TYPED(f16, CPT, 2, NGM, L);                                              \
        else if (dt == CUDNN_DATA_HALF)                                                            \
            SM_BCOLS_LEAN_TYPED(f16, CPT, 1, NGM, L);                                              \
        else                                                                                       \
            SM_BCOLS_LEAN_TYPED(bf16, CPT, 1, NGM, L);                                             \
        break;
        SM_BCOLS_LEAN_CASE(2, 8, 0)
        SM_BCOLS_LEAN_CASE(2, 8, 1)
        SM_BCOLS_LEAN_CASE(4, 8, 0)
        SM_BCOLS_LEAN_CASE(4, 8, 1)
        SM_BCOLS_LEAN_CASE(8, 8, 0)
        SM_BCOLS_LEAN_CASE(8, 8, 1)
        SM_BCOLS_LEAN_CASE(16, 8, 0)
        SM_BCOLS_LEAN_CASE(16, 8, 1)
        SM_BCOLS_LEAN_CASE(16, 16, 0)
        SM_BCOLS_LEAN_CASE(16, 16, 1)
#undef SM_BCOLS_LEAN_CASE
#undef SM_BCOLS_LEAN_TYPED
    default:
        return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,
                        "softmax: no lean column shape %d x %d", cpt, cg);
    }
    FD_CUDA_LAUNCHED("softmax_bwd_cols_lean<%d, %d, %d, %s> on %s data (%u x %u blocks of 32 x %d)",
                     cpt, pv, ngm, g.is_log ? "log" : "accurate", fd_dtype_name(dt), blocks.x,
                     blocks.y, cg);
    return CUDNN_STATUS_SUCCESS;
}

/* Launches softmax_bwd_cols_lean (alpha 1, beta 0: sm_bcols_lean_ok), else
 * softmax_bwd_cols<cpt, pv> (cg <= 8) or softmax_bwd_cols16<16, pv> with (32, cg) blocks. */
static cudnnStatus_t sm_cols_launch(cudnnDataType_t dt, int cpt, int pv, int cg,
                                    const sm_geom_t &g, const void *y, const void *dy, void *dx,
                                    double alpha, double beta, cudaStream_t stream)
{
    if (sm_bcols_lean_ok(g, cpt, alpha, beta))
        return sm_bcols_lean_launch(dt, cpt, pv, cg, g, y, dy, dx, stream);
    const int64_t S = g.odim[g.no - 1];
    const int64_t total = (S + 32 * pv - 1) / (32 * pv) * (g.rows / S);
    const unsigned blocks = fd_cuda_blocks(total, 1);
    const dim3 threads(32, (unsigned)cg);
    if (cg > 8) { /* sm_cols_shape's 16 x 16 shapes: softmax_bwd_cols16 */
        if (cpt != 16)
            return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,
                            "softmax: no column shape %d x %d", cpt, cg);
        if (dt == CUDNN_DATA_FLOAT)
            softmax_bwd_cols16_f32<16, 1>
                <<<blocks, threads, 0, stream>>>(g, y, dy, dx, alpha, beta);
        else if (dt == CUDNN_DATA_HALF && pv == 2)
            softmax_bwd_cols16_f16<16, 2>
                <<<blocks, threads, 0, stream>>>(g, y, dy, dx, alpha, beta);
        else if (dt == CUDNN_DATA_HALF)
            softmax_bwd_cols16_f16<16, 1>
                <<<blocks, threads, 0, stream>>>(g, y, dy, dx, alpha, beta);
        else
            softmax_bwd_cols16_bf16<16, 1>
                <<<blocks, threads, 0, stream>>>(g, y, dy, dx, alpha, beta);
        FD_CUDA_LAUNCHED("softmax_bwd_cols16<16, %d> on %s data (%u blocks of 32 x %d)", pv,
                         fd_dtype_name(dt), blocks, cg);
        return CUDNN_STATUS_SUCCESS;
    }
    switch (cpt) {
#define SM_COLS_CASE(CPT)                                                                      \
    case CPT:                                                                                  \
        if (dt == CUDNN_DATA_FLOAT)                                                            \
            softmax_bwd_cols_f32<CPT, 1><<<blocks, threads, 0, stream>>>(g, y, dy, dx, alpha,  \
                                                                         beta);                \
        else if (dt == CUDNN_DATA_HALF && pv == 2)                                             \
            softmax_bwd_cols_f16<CPT, 2><<<blocks, threads, 0, stream>>>(g, y, dy, dx, alpha,  \
                                                                         beta);                \
        else if (dt == CUDNN_DATA_HALF)                                                        \
            softmax_bwd_cols_f16<SM_COLS_CPT1(CPT), 1><<<blocks, threads, 0, stream>>>(        \
                g, y, dy, dx, alpha, beta);                                                    \
        else                                                                                   \
            softmax_bwd_cols_bf16<SM_COLS_CPT1(CPT), 1><<<blocks, threads, 0, stream>>>(       \
                g, y, dy, dx, alpha, beta);                                                    \
        break;
        SM_COLS_CASE(2)
        SM_COLS_CASE(4)
        SM_COLS_CASE(8)
        SM_COLS_CASE(16)
        SM_COLS_CASE(32)
#undef SM_COLS_CASE
    default:
        return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,
                        "softmax: no column shape %d", cpt);
    }
    FD_CUDA_LAUNCHED("softmax_bwd_cols<%d, %d> on %s data (%u blocks of 32 x %d)", cpt, pv,
                     fd_dtype_name(dt), blocks, cg);
    return CUDNN_STATUS_SUCCESS;
}
#undef SM_COLS_CPT1

/* ---- forward, strided rows (softmax_kernels.cuh, softmax_fwd_cols) -------------------------- */

/* FREEDNN_GPU_SM_FCOLS=0: the strided-row forward back on softmax_fwd_rows_online /
 * softmax_fwd_rows (the A/B); read once. */
static int sm_fcols(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_SM_FCOLS");
    return on;
}

/* Channels per thread of softmax_fwd_cols (0: the path does not serve the call), *pv pixels
 * per lane and *cg channel groups (warps a block, at most SM_FCOLS_CG_MAX = 16), for
 * sm_cols_geom's rows (the backward's calls, forward). HALF and BFLOAT16 take pixel pairs
 * where sm_cols_pairs allows them. CPT (2 .. 16) grows while the groups exceed 16, or exceed 8
 * with fewer than 16 elements (CPT x PV) a thread: FLOAT C = 64 8 x 8, C = 128 16 x 8,
 * C = 256 16 x 16; HALF pairs C = 64 8 x 8 (16 elements), C = 128 8 x 16, C = 256 16 x 16
 * (32 elements, 512 threads). */
static int sm_fcols_shape(const sm_geom_t *g, cudnnDataType_t dt, const void *const *ptr,
                          int *pv, int *cg)
{
    if (!sm_fcols() || !sm_cols_geom(g, dt) || g->rows / g->odim[g->no - 1] > 65535 ||
        g->odim[g->no - 1] > ((int64_t)1 << 35))
        return 0; /* a block a tile: at most 65535 outer indices (grid y), 2^30 tiles (x) */
    *pv = dt != CUDNN_DATA_FLOAT && sm_cols_pairs(g, ptr) ? 2 : 1;
    const int64_t C = g->row_len;
    int cpt = 2;
    while (cpt < 16 && ((C + cpt - 1) / cpt > SM_FCOLS_CG_MAX ||
                        ((C + cpt - 1) / cpt > 8 && cpt * *pv < 16)))
        cpt *= 2;
    *cg = (int)((C + cpt - 1) / cpt);
    return cpt;
}

/* FREEDNN_GPU_SM_FCOLS3=0: softmax_fwd_cols' LEAN instantiation instead of
 * softmax_fwd_cols_lean (the A/B; the same bits); read once. */
static int sm_fcols3(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_SM_FCOLS3");
    return on;
}

/* 1 when softmax_fwd_cols_lean serves a call of softmax_fwd_cols' LEAN instantiation (not LOG,
 * alpha 1, beta 0): FLOAT only under g.mul_inv (it multiplies by 1 / sum, where the LEAN kernel
 * divides without it), and the image of an outer index (C channels over S pixels plus a tile's
 * overhang) below 2^31 elements in x and y: its offsets inside it are 32-bit. */
static int sm_fcols_lean_ok(const sm_geom_t &g, cudnnDataType_t dt)
{
    if (!sm_fcols3() || (dt == CUDNN_DATA_FLOAT && !g.mul_inv))
        return 0;
    const int64_t S = g.odim[g.no - 1];
    for (int t = 0; t < 2; t++)
        if ((g.row_len - 1) * g.rst[t][0] + S + 64 > INT32_MAX)
            return 0;
    return 1;
}

/* Launches softmax_fwd_cols_lean<cpt, pv> (not LOG, alpha 1, beta 0: sm_fcols_lean_ok) or
 * softmax_fwd_cols<cpt, pv> with (32, cg) blocks. */
static cudnnStatus_t sm_fcols_launch(cudnnDataType_t dt, int cpt, int pv, int cg,
                                     const sm_geom_t &g, const void *x, void *y, double alpha,
                                     double beta, cudaStream_t stream)
{
    const int64_t S = g.odim[g.no - 1];
    const dim3 blocks((unsigned)((S + 32 * pv - 1) / (32 * pv)), (unsigned)(g.rows / S));
    const dim3 threads(32, (unsigned)cg);
    const int lean = !g.is_log && alpha == 1.0 && beta == 0.0;
    if (lean && sm_fcols_lean_ok(g, dt)) {
        const int xs = (int)g.rst[0][0], ys = (int)g.rst[1][0], np = (int)S;
        switch (cpt) {
#define SM_FCOLS_LEAN_TYPED(SFX, CPT, PV)                                                          \
    softmax_fwd_cols_lean_##SFX<CPT, PV><<<blocks, threads, 0, stream>>>(g, x, y, xs, ys, np)
#define SM_FCOLS_LEAN_CASE(CPT)                                                                    \
    case CPT:                                                                                      \
        if (dt == CUDNN_DATA_FLOAT)                                                                \
            SM_FCOLS_LEAN_TYPED(f32, CPT, 1);                                                      \
        else if (dt == CUDNN_DATA_HALF && pv == 2)                                                 \
            SM_FCOLS_LEAN_TYPED(f16, CPT, 2);                                                      \
        else if (dt == CUDNN_DATA_HALF)                                                            \
            SM_FCOLS_LEAN_TYPED(f16, CPT, 1);                                                      \
        else if (pv == 2)                                                                          \
            SM_FCOLS_LEAN_TYPED(bf16, CPT, 2);                                                     \
        else                                                                                       \
            SM_FCOLS_LEAN_TYPED(bf16, CPT, 1);                                                     \
        break;
            SM_FCOLS_LEAN_CASE(2)
            SM_FCOLS_LEAN_CASE(4)
            SM_FCOLS_LEAN_CASE(8)
            SM_FCOLS_LEAN_CASE(16)
#undef SM_FCOLS_LEAN_CASE
#undef SM_FCOLS_LEAN_TYPED
        default:
            return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,
                            "softmax: no forward column shape %d", cpt);
        }
        FD_CUDA_LAUNCHED("softmax_fwd_cols_lean<%d, %d> on %s data (%u x %u blocks of 32 x %d)",
                         cpt, pv, fd_dtype_name(dt), blocks.x, blocks.y, cg);
        return CUDNN_STATUS_SUCCESS;
    }
    switch (cpt) {
#define SM_FCOLS_TYPED(CPT, L)                                                                 \
    do {                                                                                       \
        if (dt == CUDNN_DATA_FLOAT)                                                            \
            softmax_fwd_cols_f32<CPT, 1, L><<<blocks, threads, 0, stream>>>(g, x, y, alpha,    \
                                                                            beta);             \
        else if (dt == CUDNN_DATA_HALF && pv == 2)                                             \
            softmax_fwd_cols_f16<CPT, 2, L><<<blocks, threads, 0, stream>>>(g, x, y, alpha,    \
                                                                            beta);             \
        else if (dt == CUDNN_DATA_HALF)                                                        \
            softmax_fwd_cols_f16<CPT, 1, L><<<blocks, threads, 0, stream>>>(g, x, y, alpha,    \
                                                                            beta);             \
        else if (pv == 2)                                                                      \
            softmax_fwd_cols_bf16<CPT, 2, L><<<blocks, threads, 0, stream>>>(g, x, y, alpha,   \
                                                                             beta);            \
        else                                                                                   \
            softmax_fwd_cols_bf16<CPT, 1, L><<<blocks, threads, 0, stream>>>(g, x, y, alpha,   \
                                                                             beta);            \
    } while (0)
#define SM_FCOLS_CASE(CPT)                                                                     \
    case CPT:                                                                                  \
        if (lean)                                                                              \
            SM_FCOLS_TYPED(CPT, true);                                                         \
        else                                                                                   \
            SM_FCOLS_TYPED(CPT, false);                                                        \
        break;
        SM_FCOLS_CASE(2)
        SM_FCOLS_CASE(4)
        SM_FCOLS_CASE(8)
        SM_FCOLS_CASE(16)
#undef SM_FCOLS_CASE
#undef SM_FCOLS_TYPED
    default:
        return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,
                        "softmax: no forward column shape %d", cpt);
    }
    FD_CUDA_LAUNCHED("softmax_fwd_cols<%d, %d%s> on %s data (%u x %u blocks of 32 x %d)", cpt,
                     pv, lean ? ", lean" : "", fd_dtype_name(dt), blocks.x, blocks.y, cg);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- rows (src/impls.def) ------------------------------------------------------------------ */

static int sm_applicable(const struct cudnnTensorStruct *t, char *why, size_t why_size)
{
    if (!fd_cuda_elem_dtype_ok(t->dtype)) {
        snprintf(why, why_size, "%s data; the softmax kernels take FLOAT, DOUBLE, HALF, BFLOAT16",
                 fd_dtype_name(t->dtype));
        return 0;
    }
    if (t->nb_dims < 2 || t->nb_dims > 1 + SM_DIMS) {
        snprintf(why, why_size, "%d dims; the softmax kernels take 2 to %d", t->nb_dims,
                 1 + SM_DIMS);
        return 0;
    }
    return 1;
}

extern "C" int fd_softmax_fwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return sm_applicable(&((const fd_softmax_fwd_problem_t *)problem)->x, why, why_size);
}
extern "C" size_t fd_softmax_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_softmax_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_softmax_fwd_problem_t *p = (const fd_softmax_fwd_problem_t *)problem;
    const fd_softmax_fwd_args_t *a = (const fd_softmax_fwd_args_t *)args;
    const struct cudnnTensorStruct *t[SM_TENSORS] = {&p->x, &p->y, &p->y};
    sm_geom_t g = geom_of(p->algo, p->mode, t, SM_TENSORS, 1);
    const cudaStream_t stream = a->handle->stream;
    const void *ptrs[SM_TENSORS] = {a->x, a->y, a->y};
    g.mul_inv = fd_cuda_bw3_on() && p->x.dtype == CUDNN_DATA_FLOAT;
    const int lanes = sm_lean2_lanes(g, p->x.dtype, 0, a->alpha, a->beta, ptrs, 2);
    if (lanes)
        return sm_lean2_launch(p->x.dtype, lanes, 0, g, a->x, NULL, a->y, stream);
    int nv = 0;
    const int lpr = sm_wreg_shape(&g, p->x.dtype, ptrs, 2, &nv);
    if (lpr)
        return sm_wreg_launch(p->x.dtype, lpr, nv, 0, g, a->x, NULL, a->y, a->alpha, a->beta,
                              stream);
    const unsigned threads = block_threads(&g, 1);
    int pv = 0, cg = 0;
    const int cpt = threads ? 0 : sm_fcols_shape(&g, p->x.dtype, ptrs, &pv, &cg);
    if (threads == 32) {
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK / 32);
        FD_CUDA_TYPED_LAUNCH(p->x.dtype, softmax_fwd_warp, blocks, FD_CUDA_BLOCK, stream, g,
                             a->x, a->y, a->alpha, a->beta);
    } else if (threads) {
        const unsigned blocks = fd_cuda_blocks(g.rows, 1);
        FD_CUDA_TYPED_LAUNCH(p->x.dtype, softmax_fwd_block, blocks, threads, stream, g, a->x, a->y,
                             a->alpha, a->beta);
    } else if (cpt) {
        return sm_fcols_launch(p->x.dtype, cpt, pv, cg, g, a->x, a->y, a->alpha, a->beta,
                               stream);
    } else if (g.nr == 1 && g.row_len >= 32 && p->x.dtype != CUDNN_DATA_DOUBLE) {
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK);
        FD_CUDA_TYPED_LAUNCH(p->x.dtype, softmax_fwd_rows_online, blocks, FD_CUDA_BLOCK, stream,
                             g, a->x, a->y, a->alpha, a->beta);
    } else {
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK);
        FD_CUDA_TYPED_LAUNCH(p->x.dtype, softmax_fwd_rows, blocks, FD_CUDA_BLOCK, stream, g, a->x,
                             a->y, a->alpha, a->beta);
    }
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_softmax_bwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return sm_applicable(&((const fd_softmax_bwd_problem_t *)problem)->y, why, why_size);
}
extern "C" size_t fd_softmax_bwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_softmax_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_softmax_bwd_problem_t *p = (const fd_softmax_bwd_problem_t *)problem;
    const fd_softmax_bwd_args_t *a = (const fd_softmax_bwd_args_t *)args;
    const struct cudnnTensorStruct *t[SM_TENSORS] = {&p->y, &p->dy, &p->dx};
    const sm_geom_t g = geom_of(p->algo, p->mode, t, SM_TENSORS, 2);
    const cudaStream_t stream = a->handle->stream;
    const void *ptrs[3] = {a->y, a->dy, a->dx};
    const int lanes = sm_lean2_lanes(g, p->y.dtype, 1, a->alpha, a->beta, ptrs, 3);
    if (lanes)
        return sm_lean2_launch(p->y.dtype, lanes, 1, g, a->y, a->dy, a->dx, stream);
    int nv = 0;
    const int lpr = sm_wreg_shape(&g, p->y.dtype, ptrs, 3, &nv);
    if (lpr)
        return sm_wreg_launch(p->y.dtype, lpr, nv, 1, g, a->y, a->dy, a->dx, a->alpha, a->beta,
                              stream);
    const unsigned threads = block_threads(&g, 2);
    if (threads == 32) {
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK / 32);
        FD_CUDA_TYPED_LAUNCH(p->y.dtype, softmax_bwd_warp, blocks, FD_CUDA_BLOCK, stream, g,
                             a->y, a->dy, a->dx, a->alpha, a->beta);
    } else if (threads) {
        const unsigned blocks = fd_cuda_blocks(g.rows, 1);
        FD_CUDA_TYPED_LAUNCH(p->y.dtype, softmax_bwd_block, blocks, threads, stream, g, a->y,
                             a->dy, a->dx, a->alpha, a->beta);
    } else {
        int pv = 0, cg = 0;
        const int cpt = sm_cols_shape(&g, p->y.dtype, ptrs, &pv, &cg);
        if (cpt)
            return sm_cols_launch(p->y.dtype, cpt, pv, cg, g, a->y, a->dy, a->dx, a->alpha,
                                  a->beta, stream);
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK);
        FD_CUDA_TYPED_LAUNCH(p->y.dtype, softmax_bwd_rows, blocks, FD_CUDA_BLOCK, stream, g, a->y,
                             a->dy, a->dx, a->alpha, a->beta);
    }
    return CUDNN_STATUS_SUCCESS;
}
