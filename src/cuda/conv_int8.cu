/* SPDX-License-Identifier: MIT */
/*
 * conv_int8.cu - INT8 forward convolution as an implicit GEMM, two rows of one kernel:
 *   fd_conv_fwd_int8_imma  tensor cores: mma.sync m16n8k32 s8 (SASS IMMA.16832.S8.S8), sm_80+
 *   fd_conv_fwd_int8_dp4a  CUDA cores: __dp4a (SASS IDP.4A.S8.S8); FREEDNN_INT8_IMMA=0 leaves it
 * serving every INT8 configuration fd_conv_problem_init admits (docs/int8.md) for IMPLICIT_GEMM
 * and IMPLICIT_PRECOMP_GEMM with no workspace: INT8_CONFIG / INT8_EXT_CONFIG (x channels-last with
 * unit C stride, w KRSC, y INT8 channels-last or FLOAT), INT8x4 / UINT8x4 (_EXT) and INT8x32
 * (x, w NCHW_VECT_C; y the same or, for _EXT, FLOAT in any layout). Groups with C / groups a
 * multiple of 4; any pad / stride / dilation, both modes, 1 to 3 spatial dims, at most 512
 * filter taps, offsets below 2^30.
 *
 * GEMM per group g (grid z): y[m, k] = sum_kk A[m, kk] B[kk, k]; m = (n, o0, o1, o2),
 * k < K / groups, kk = (memory tap f, channel c) with c inner, counted in 32-bit words of 4
 * channels (NHWC / KRSC and every NCHW_VECT_C layout hold 4 consecutive channels in one word:
 * word j of a plain tensor at 4 j bytes, of an x4 tensor at j vector strides, of an x32 one at
 * (j / 8) vector strides + 4 (j % 8)); UINT8x4 x multiplies unsigned by signed bytes
 * (dp4a.u32.s32, mma .u8.s8); A = x at
 * o * stride - pad + t * dil (t = f for cross-correlation, FLT - 1 - f for convolution; a zero
 * word outside x), B = w[k, f, c].
 * Tile 128 (m) x 128 (k) x 8 words (32 channels) per block, 256 threads, 64 int32 accumulators
 * each: dp4a, 8 x 8 outputs per thread (two quads of 4 per dimension, int4 reads of shared
 * memory, 512 IDP4A per k-step); imma, 64 x 32 per warp as 4 x 4 m16n8k32 tiles (16 IMMA per
 * k-step). A 4-stage ring of 4-byte cp.async copies zero-filled where the gather falls outside:
 * 2 x 4 x 8 x 132 words = 33 KiB, plus the tap table (512 taps: 10 KiB), 44032 bytes static; per
 * k-step a block loads 8 KiB (4 KiB of x, 4 KiB of w) in 8 copies per thread. Pointers or
 * strides not multiples of 4 bytes take the same kernels with byte loads (ALIGNED = false).
 * ptxas (nvcc 13, -O2): sm_90 119-127 registers, sm_80 118-126, 0 spills, 0 stack;
 * __launch_bounds__(256, 2).
 *
 * Exactness: int32 additions (IDP4A, IMMA without .satfinite) wrap modulo 2^32, as the ref's
 * uint32_t sums do, and addition modulo 2^32 is associative, so the order of the sums does not
 * matter. The epilogue is fd_conv_int8_store's (src/ref/conv_int8_ref.c) operation for
 * operation: alpha * (float)acc, + beta * (float)y_old only when beta != 0 (y is not read
 * otherwise), each rounded on its own (__fmul_rn / __fadd_rn: no FMA contraction); FLOAT y
 * stores that; integer y rounds to nearest even (rintf), saturates to [-128, 127] (UINT8x4:
 * [0, 255]), NaN -> 0. So the bits equal ref's, and both rows are deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_cuda.cuh"

#define I8_BM 128
#define I8_BN 128
#define I8_BKW 8 /* 32-bit words (4 channels each) of the reduction per k-step */
#define I8_STAGES 4
#define I8_THREADS 256
#define I8_LD (I8_BM + 4) /* padded row of a staged [I8_BKW][128] tile */
#define I8_MAX_TAPS 512
#define I8_FAR (-(1 << 30)) /* a position no tap offset brings back inside */
#define I8_LIMIT ((int64_t)1 << 30)

typedef struct {
    int m;                /* GEMM rows: N * O0 * O1 * O2 */
    int kg;               /* GEMM columns: output channels per group */
    int cw;               /* words of 4 channels per tap of one group */
    int ntaps, kredw;     /* kredw = ntaps * cw */
    int adv_hi, adv_lo;   /* I8_BKW = adv_hi * cw + adv_lo */
    int sp[3];            /* output extents */
    int lim[3];           /* input extents */
    int str[3], pad[3];
    int flt[3], dil[3], cross;
    int xs[5];            /* x strides in bytes: batch, channel (unused: xvs), spatial */
    int wk, wst[3];       /* filter strides: output channel, taps */
    int cg;               /* channels per group */
    int xsh, xvs;         /* word j of x's channels at (j >> xsh) * xvs + (j & (2^xsh - 1)) * 4 bytes */
    int wsh, wvs;         /* the same for w's channels (within a group) */
    int ysh;              /* y channel ch at (ch >> ysh) * ys[1] + (ch & (2^ysh - 1)) */
    int ykind;            /* 0 FLOAT, 1 INT8 (plain, x4, x32), 2 UINT8x4 */
    float alpha, beta;
    int64_t ys[5];        /* y strides in elements */
} i8_geom_t;

/* ---- device helpers ---------------------------------------------------------------------- */

/* 4 bytes global -> shared, or 4 zero bytes when !ok (src-size 0 reads nothing). */
static __device__ __forceinline__ void i8_cp4(int *smem, const int8_t *gmem, int ok)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(ok ? 4 : 0));
}

static __device__ __forceinline__ void i8_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::);
}

#define I8_WAIT(n) asm volatile("cp.async.wait_group %0;\n" ::"n"(n))

/* One word of 4 channels into shared memory: a cp.async when the address is 4-byte aligned,
 * else four byte loads stored directly (the stage is free: the ring's barriers order it). */
template <bool ALIGNED>
static __device__ __forceinline__ void i8_word(int *dst, const int8_t *src, int ok)
{
    if (ALIGNED) {
        i8_cp4(dst, src, ok);
    } else {
        unsigned v = 0;
        if (ok) {
            const unsigned char *b = (const unsigned char *)src;
            v = (unsigned)b[0] | (unsigned)b[1] << 8 | (unsigned)b[2] << 16 | (unsigned)b[3] << 24;
        }
        *dst = (int)v;
    }
}

/* Tile row / column of a thread's i-th (0..7) output: two quads of 4, 64 apart. */
static __device__ __forceinline__ int i8_quad(int t, int i)
{
    return (i < 4 ? 0 : 64) + t * 4 + (i & 3);
}

/* fd_conv_int8_store on the device: the same float operations, each rounded alone. */
static __device__ __forceinline__ void i8_store(const i8_geom_t &g, void *y, int64_t off, int acc)
{
    float v = __fmul_rn(g.alpha, __int2float_rn(acc));
    if (g.ykind == 0) {
        float *p = (float *)y + off;
        if (g.beta != 0.0f)
            v = __fadd_rn(v, __fmul_rn(g.beta, *p));
        *p = v;
        return;
    }
    const bool u = g.ykind == 2;
    if (g.beta != 0.0f) {
        const float old = u ? (float)((const uint8_t *)y)[off] : (float)((const int8_t *)y)[off];
        v = __fadd_rn(v, __fmul_rn(g.beta, old));
    }
    const float lo = u ? 0.0f : -128.0f, hi = u ? 255.0f : 127.0f;
    float r = isnan(v) ? 0.0f : rintf(v); /* rintf: round half to even */
    r = r < lo ? lo : r > hi ? hi : r;
    if (u)
        ((uint8_t *)y)[off] = (uint8_t)(int)r;
    else
        ((int8_t *)y)[off] = (int8_t)(int)r;
}

/* Byte offset of channel word j of a tensor whose words sit (j >> sh) * vs + (j & mask) * 4. */
static __device__ __forceinline__ int i8_word_off(int j, int sh, int vs)
{
    return (j >> sh) * vs + (j & ((1 << sh) - 1)) * 4;
}

/* Issues one A (x) tile: 4 words per thread, rows a_row + 32 i, reduction word lane. */
template <bool ALIGNED>
static __device__ __forceinline__ void i8_load_a(const i8_geom_t &g, const int4 *tab,
                                                 const int8_t *x, int *dst, int kw, int hi,
                                                 int lo, const int *base, const int *p0,
                                                 const int *p1, const int *p2)
{
    const int valid = kw < g.kredw;
    const int f = hi < g.ntaps ? hi : g.ntaps - 1;
    const int4 t = tab[f];
    const int off = i8_word_off(blockIdx.z * g.cw + lo, g.xsh, g.xvs) + t.w;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int ok = valid && (unsigned)(p0[i] + t.x) < (unsigned)g.lim[0] &&
                       (unsigned)(p1[i] + t.y) < (unsigned)g.lim[1] &&
                       (unsigned)(p2[i] + t.z) < (unsigned)g.lim[2];
        i8_word<ALIGNED>(dst + 32 * i, ok ? x + (base[i] + off) : x, ok);
    }
}

/* Issues one B (filter) tile: columns b_col + 32 i, reduction word lane. */
template <bool ALIGNED>
static __device__ __forceinline__ void i8_load_b(const i8_geom_t &g, const int *wtab,
                                                 const int8_t *w, int *dst, int kw, int hi,
                                                 int lo, const int *base)
{
    const int valid = kw < g.kredw;
    const int f = hi < g.ntaps ? hi : g.ntaps - 1;
    const int off = i8_word_off(lo, g.wsh, g.wvs) + wtab[f];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int ok = valid && base[i] >= 0;
        i8_word<ALIGNED>(dst + 32 * i, ok ? w + (base[i] + off) : w, ok);
    }
}

/* kw += I8_BKW in (tap, word) digits; adv_lo < cw, so one carry at most. */
#define I8_ADVANCE(kw, hi, lo)                                                                 \
    do {                                                                                       \
        (kw) += I8_BKW;                                                                        \
        (lo) += g.adv_lo;                                                                      \
        (hi) += g.adv_hi;                                                                      \
        if ((lo) >= g.cw) {                                                                    \
            (lo) -= g.cw;                                                                      \
            ++(hi);                                                                            \
        }                                                                                      \
    } while (0)

/* mma.sync m16n8k32 on int8 (IMMA): d = a b + c in int32, wrapping (no .satfinite).
 * Fragments (lane = 4 gid + tig): a0 = A[gid][4 tig..], a1 = A[gid + 8][4 tig..],
 * a2 = A[gid][16 + 4 tig..], a3 = A[gid + 8][16 + 4 tig..]; b0 = B[4 tig..][gid],
 * b1 = B[16 + 4 tig..][gid]; c0, c1 = C[gid][2 tig + {0, 1}], c2, c3 = C[gid + 8][2 tig + {0, 1}].
 * (A and B share one k order, so the reduction's order inside a word never matters.) */
template <bool XU>
static __device__ __forceinline__ void i8_mma(int *d, int a0, int a1, int a2, int a3, int b0, int b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (XU)
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
    (void)d, (void)a0, (void)a1, (void)a2, (void)a3, (void)b0, (void)b1;
#endif
}

/* c + the 4 byte products of a and b: a's bytes unsigned (UINT8x4 x) or signed, b's signed. */
template <bool XU>
static __device__ __forceinline__ int i8_dp4a(int a, int b, int c)
{
    if (!XU)
        return __dp4a(a, b, c);
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* MMA = false: each thread 8 x 8 outputs by IDP4A (rows / columns: two quads of 4, 64 apart).
 * MMA = true: warp w owns rows 64 (w & 1) .. + 63 and columns 32 (w >> 1) .. + 31 as 4 x 4
 * m16n8k32 tiles. Both keep 64 int32 accumulators per thread; the loaders are the same. */
template <bool ALIGNED, bool MMA, bool XU>
static __global__ void __launch_bounds__(I8_THREADS, 2)
    conv_int8_igemm(const i8_geom_t g, const int8_t *__restrict__ x, const int8_t *__restrict__ w,
                    void *__restrict__ y)
{
    __shared__ __align__(16) int as[I8_STAGES][I8_BKW * I8_LD];
    __shared__ __align__(16) int bs[I8_STAGES][I8_BKW * I8_LD];
    __shared__ int4 tab[I8_MAX_TAPS]; /* per memory tap: dilated logical offsets, x offset */
    __shared__ int wtab[I8_MAX_TAPS]; /* per memory tap: filter offset */

    const int tid = threadIdx.x;
    for (int f = tid; f < g.ntaps; f += I8_THREADS) {
        const int f2 = f % g.flt[2], f1 = (f / g.flt[2]) % g.flt[1], f0 = f / (g.flt[2] * g.flt[1]);
        const int t0 = g.cross ? f0 : g.flt[0] - 1 - f0;
        const int t1 = g.cross ? f1 : g.flt[1] - 1 - f1;
        const int t2 = g.cross ? f2 : g.flt[2] - 1 - f2;
        const int d0 = t0 * g.dil[0], d1 = t1 * g.dil[1], d2 = t2 * g.dil[2];
        tab[f] = make_int4(d0, d1, d2, d0 * g.xs[2] + d1 * g.xs[3] + d2 * g.xs[4]);
        wtab[f] = f0 * g.wst[0] + f1 * g.wst[1] + f2 * g.wst[2];
    }

    const int m0 = blockIdx.x * I8_BM, n0 = blockIdx.y * I8_BN, grp = blockIdx.z;

    /* loaders: one reduction word lane, four rows (A) / columns (B) 32 apart */
    const int lane = tid & 7, row = tid >> 3;
    int a_base[4], a_p0[4], a_p1[4], a_p2[4], b_base[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int m = m0 + row + 32 * i;
        if (m < g.m) {
            int r = m;
            const int q2 = r % g.sp[2];
            r /= g.sp[2];
            const int q1 = r % g.sp[1];
            r /= g.sp[1];
            const int q0 = r % g.sp[0];
            const int nb = r / g.sp[0];
            a_p0[i] = q0 * g.str[0] - g.pad[0];
            a_p1[i] = q1 * g.str[1] - g.pad[1];
            a_p2[i] = q2 * g.str[2] - g.pad[2];
            a_base[i] = nb * g.xs[0] + a_p0[i] * g.xs[2] + a_p1[i] * g.xs[3] +
                        a_p2[i] * g.xs[4];
        } else {
            a_p0[i] = I8_FAR, a_p1[i] = a_p2[i] = 0, a_base[i] = 0;
        }
        const int col = n0 + row + 32 * i;
        b_base[i] = col < g.kg ? (grp * g.kg + col) * g.wk : -1;
    }
    int a_kw = lane, a_hi = lane / g.cw, a_lo = lane % g.cw;
    int b_kw = a_kw, b_hi = a_hi, b_lo = a_lo;
    int *const a_dst = &as[0][lane * I8_LD + row];
    int *const b_dst = &bs[0][lane * I8_LD + row];
    const int stage = I8_BKW * I8_LD;

    /* dp4a: columns along the thread index (y is channel-contiguous); mma: the fragments' */
    const int cn = tid & 15, rm = tid >> 4;
    const int warp = tid >> 5, gid = (tid & 31) >> 2, tig = tid & 3;
    const int wm = (warp & 1) * 64, wn = (warp >> 1) * 32;

    int acc[64];
#pragma unroll
    for (int i = 0; i < 64; i++)
        acc[i] = 0;

    __syncthreads(); /* the tap tables */
    const int ktiles = (g.kredw + I8_BKW - 1) / I8_BKW;
    for (int s = 0; s < I8_STAGES - 1; s++) {
        if (s < ktiles) {
            i8_load_a<ALIGNED>(g, tab, x, a_dst + s * stage, a_kw, a_hi, a_lo, a_base, a_p0, a_p1, a_p2);
            i8_load_b<ALIGNED>(g, wtab, w, b_dst + s * stage, b_kw, b_hi, b_lo, b_base);
            I8_ADVANCE(a_kw, a_hi, a_lo);
            I8_ADVANCE(b_kw, b_hi, b_lo);
        }
        i8_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        I8_WAIT(I8_STAGES - 2);
        __syncthreads(); /* tile kt landed for everyone; stage (kt - 1) % S is free */
        const int nxt = kt + I8_STAGES - 1;
        if (nxt < ktiles) {
            const int st = nxt % I8_STAGES;
            i8_load_a<ALIGNED>(g, tab, x, a_dst + st * stage, a_kw, a_hi, a_lo, a_base, a_p0, a_p1, a_p2);
            i8_load_b<ALIGNED>(g, wtab, w, b_dst + st * stage, b_kw, b_hi, b_lo, b_base);
            I8_ADVANCE(a_kw, a_hi, a_lo);
            I8_ADVANCE(b_kw, b_hi, b_lo);
        }
        i8_commit();
        const int *at = as[kt % I8_STAGES], *bt = bs[kt % I8_STAGES];
        if (MMA) {
            /* words tig and tig + 4 of the k-step: k = 4 tig.. and 16 + 4 tig.. */
            int b[4][2];
#pragma unroll
            for (int ni = 0; ni < 4; ni++) {
                b[ni][0] = bt[tig * I8_LD + wn + ni * 8 + gid];
                b[ni][1] = bt[(tig + 4) * I8_LD + wn + ni * 8 + gid];
            }
#pragma unroll
            for (int mi = 0; mi < 4; mi++) {
                const int r = wm + mi * 16 + gid;
                const int a0 = at[tig * I8_LD + r], a1 = at[tig * I8_LD + r + 8];
                const int a2 = at[(tig + 4) * I8_LD + r], a3 = at[(tig + 4) * I8_LD + r + 8];
#pragma unroll
                for (int ni = 0; ni < 4; ni++)
                    i8_mma<XU>(&acc[(mi * 4 + ni) * 4], a0, a1, a2, a3, b[ni][0], b[ni][1]);
            }
        } else {
#pragma unroll
            for (int k = 0; k < I8_BKW; k++) {
                const int4 a0 = *(const int4 *)(at + k * I8_LD + rm * 4);
                const int4 a1 = *(const int4 *)(at + k * I8_LD + 64 + rm * 4);
                const int4 b0 = *(const int4 *)(bt + k * I8_LD + cn * 4);
                const int4 b1 = *(const int4 *)(bt + k * I8_LD + 64 + cn * 4);
                const int a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
                const int b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
                for (int i = 0; i < 8; i++)
#pragma unroll
                    for (int j = 0; j < 8; j++)
                        acc[i * 8 + j] = i8_dp4a<XU>(a[i], b[j], acc[i * 8 + j]);
            }
        }
    }
    I8_WAIT(0);

    /* 8 rows x 8 columns per thread; (i, j) -> tile row, tile column, accumulator */
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int m = m0 + (MMA ? wm + (i >> 1) * 16 + gid + (i & 1) * 8 : i8_quad(rm, i));
        if (m >= g.m)
            continue;
        int r = m;
        const int q2 = r % g.sp[2];
        r /= g.sp[2];
        const int q1 = r % g.sp[1];
        r /= g.sp[1];
        const int q0 = r % g.sp[0];
        const int nb = r / g.sp[0];
        const int64_t orow = nb * g.ys[0] + q0 * g.ys[2] + q1 * g.ys[3] + q2 * g.ys[4];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const int col = n0 + (MMA ? wn + (j >> 1) * 8 + tig * 2 + (j & 1) : i8_quad(cn, j));
            const int e = MMA ? ((i >> 1) * 4 + (j >> 1)) * 4 + (i & 1) * 2 + (j & 1) : i * 8 + j;
            if (col < g.kg) {
                const int ch = grp * g.kg + col;
                i8_store(g, y, orow + (int64_t)(ch >> g.ysh) * g.ys[1] + (ch & ((1 << g.ysh) - 1)),
                         acc[e]);
            }
        }
    }
}

/* ---- host side ---------------------------------------------------------------------------- */

static int64_t i8_abs(int64_t v)
{
    return v < 0 ? -v : v;
}

/* What both rows take (the reasons name no engine: the rows decline the same problems). */
static int i8_check(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    /* fd_conv_problem_init admitted only cuDNN's INT8 configurations (check_int8): INT8 /
     * INT8x4 / UINT8x4 / INT8x32 x with an INT8-family filter and y of the same family or FLOAT */
    if (!fd_conv_is_int8(p) || p->dir != FD_CONV_FWD) {
        snprintf(why, why_size, "x/w/y/compute are %s/%s/%s/%s; this row takes the INT8 configurations",
                 fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt),
                 fd_dtype_name(p->compute));
        return 0;
    }
    if ((p->xvect == 1 && p->xs[1] != 1) || (p->wvect == 1 && p->ws[1] != 1)) {
        snprintf(why, why_size, "needs unit C strides in plain INT8 x and w (NHWC, KRSC)");
        return 0;
    }
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    if (cg % 4 != 0) {
        snprintf(why, why_size, "C / groups = %lld, not a multiple of 4 (4-channel words)",
                 (long long)cg);
        return 0;
    }
    const int64_t taps = p->flt[0] * p->flt[1] * p->flt[2];
    if (taps > I8_MAX_TAPS) {
        snprintf(why, why_size, "%lld filter taps; the kernel's tap table holds %d",
                 (long long)taps, I8_MAX_TAPS);
        return 0;
    }
    if ((kg + I8_BN - 1) / I8_BN > 65535 || p->groups > 65535) {
        snprintf(why, why_size, "K / groups = %lld, groups = %lld exceed the grid's 65535 tiles",
                 (long long)kg, (long long)p->groups);
        return 0;
    }
    /* every offset the gathers form, out-of-range positions included, in 32 bits */
    int64_t xreach = p->n * i8_abs(p->xs[0]) + (p->c / p->xvect + 1) * i8_abs(p->xs[1]) * 4,
            wreach = p->k * i8_abs(p->ws[0]) + (cg / p->wvect + 1) * i8_abs(p->ws[1]) * 4, pos = 0;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        const int64_t v = p->out[d] * p->stride[d] + p->flt[d] * p->dil[d] + p->in[d] + p->pad[d];
        pos = v > pos ? v : pos;
        xreach += v * i8_abs(p->xs[2 + d]);
        wreach += p->flt[d] * i8_abs(p->ws[2 + d]);
    }
    const int64_t m = p->n * p->out[0] * p->out[1] * p->out[2];
    if (pos >= ((int64_t)1 << 28) || xreach >= I8_LIMIT || wreach >= I8_LIMIT || m >= I8_LIMIT) {
        snprintf(why, why_size, "a size or offset reaches the kernel's 32-bit index limit (2^30)");
        return 0;
    }
    return 1;
}

static cudnnStatus_t i8_run(const fd_conv_problem_t *p, const fd_conv_args_t *a, bool mma)
{
    i8_geom_t g;
    const int64_t cg = p->c / p->groups;
    g.m = (int)(p->n * p->out[0] * p->out[1] * p->out[2]);
    g.kg = (int)(p->k / p->groups);
    g.cg = (int)cg;
    g.cw = (int)(cg / 4);
    g.ntaps = (int)(p->flt[0] * p->flt[1] * p->flt[2]);
    g.kredw = g.ntaps * g.cw;
    g.adv_hi = I8_BKW / g.cw;
    g.adv_lo = I8_BKW % g.cw;
    for (int d = 0; d < 3; d++) {
        g.sp[d] = (int)p->out[d], g.lim[d] = (int)p->in[d];
        g.str[d] = (int)p->stride[d], g.pad[d] = (int)p->pad[d];
        g.flt[d] = (int)p->flt[d], g.dil[d] = (int)p->dil[d];
        g.wst[d] = (int)p->ws[2 + d];
    }
    for (int d = 0; d < 5; d++)
        g.xs[d] = (int)p->xs[d], g.ys[d] = p->ys[d];
    g.wk = (int)p->ws[0];
    g.cross = p->cross_correlation;
    /* channel words: plain C-contiguous 4 bytes apart; NCHW_VECT_C x4 one vector (s[1] bytes)
     * apart; x32 eight words per vector */
    g.xsh = p->xvect == 32 ? 3 : 0;
    g.xvs = p->xvect == 1 ? 4 : (int)p->xs[1];
    g.wsh = p->wvect == 32 ? 3 : 0;
    g.wvs = p->wvect == 1 ? 4 : (int)p->ws[1];
    g.ysh = p->yvect == 32 ? 5 : p->yvect == 4 ? 2 : 0;
    g.ykind = p->ydt == CUDNN_DATA_FLOAT ? 0 : p->ydt == CUDNN_DATA_UINT8x4 ? 2 : 1;
    g.alpha = (float)a->alpha; /* the ref's conversions */
    g.beta = (float)a->beta;

    /* 4-byte words need 4-byte aligned pointers and strides (channel offsets are multiples
     * of 4 already: C / groups % 4 == 0; vector strides are multiples of the vector) */
    int aligned = ((uintptr_t)a->x % 4 == 0) && ((uintptr_t)a->w % 4 == 0);
    for (int d = 0; d < 5; d++) /* plain x and w: channel stride 1 inside the word */
        aligned = aligned && (p->xs[d] % 4 == 0 || (d == 1 && p->xvect == 1)) &&
                  (p->ws[d] % 4 == 0 || (d == 1 && p->wvect == 1));

    const dim3 grid((unsigned)((g.m + I8_BM - 1) / I8_BM), (unsigned)((g.kg + I8_BN - 1) / I8_BN),
                    (unsigned)p->groups);
    cudaStream_t s = a->handle->stream;
    const int8_t *x = (const int8_t *)a->x, *w = (const int8_t *)a->w;
    const bool xu = fd_conv_int8_lane(p->xdt) == CUDNN_DATA_UINT8;
    void (*kernel)(const i8_geom_t, const int8_t *, const int8_t *, void *) =
        mma ? (aligned ? (xu ? conv_int8_igemm<true, true, true> : conv_int8_igemm<true, true, false>)
                       : (xu ? conv_int8_igemm<false, true, true> : conv_int8_igemm<false, true, false>))
            : (aligned ? (xu ? conv_int8_igemm<true, false, true> : conv_int8_igemm<true, false, false>)
                       : (xu ? conv_int8_igemm<false, false, true> : conv_int8_igemm<false, false, false>));
    kernel<<<grid, I8_THREADS, 0, s>>>(g, x, w, a->out);
    FD_CUDA_LAUNCHED("conv_int8_igemm %s%s (grid %u x %u x %u, stream %p)", mma ? "imma" : "dp4a",
                     aligned ? "" : " bytewise", grid.x, grid.y, grid.z, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

/* FREEDNN_INT8_IMMA=0 turns the tensor-core row off (the dp4a row then serves); read once. */
static int i8_imma_env_on(void)
{
    const char *e = getenv("FREEDNN_INT8_IMMA");
    return e == NULL || strcmp(e, "0") != 0;
}

extern "C" int fd_conv_fwd_int8_imma_applicable(const fd_conv_problem_t *p, char *why,
                                                size_t why_size)
{
    static const int on = i8_imma_env_on();
    if (!on) {
        snprintf(why, why_size, "turned off (FREEDNN_INT8_IMMA=0)");
        return 0;
    }
    return i8_check(p, why, why_size);
}

extern "C" size_t fd_conv_fwd_int8_imma_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

extern "C" cudnnStatus_t fd_conv_fwd_int8_imma_run(const fd_conv_problem_t *p,
                                                   const fd_conv_args_t *a)
{
    return i8_run(p, a, true);
}

extern "C" int fd_conv_fwd_int8_dp4a_applicable(const fd_conv_problem_t *p, char *why,
                                                size_t why_size)
{
    return i8_check(p, why, why_size);
}

extern "C" size_t fd_conv_fwd_int8_dp4a_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

extern "C" cudnnStatus_t fd_conv_fwd_int8_dp4a_run(const fd_conv_problem_t *p,
                                                   const fd_conv_args_t *a)
{
    return i8_run(p, a, false);
}
