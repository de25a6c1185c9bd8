/* SPDX-License-Identifier: MIT */
/*
 * lrn_cpu.c - cpu cross-channel LRN forward and backward (FD_OP_LRN_FWD / _BWD cpu rows;
 * divisive normalization stays with the ref rows).
 *
 * Decisions:
 * - FLOAT on AVX-512 with packed spatial dims (the lrf_* rows, NCHW-like "plane" and NHWC-like
 *   "pixel" below) computes in float and is NOT bit-identical with ref (product decision
 *   2026-11-30, as for the transcendental activations): window sums of squares in float (fma,
 *   channel order), s = k + alpha / n * sum in float, s^-beta by lrf_powf, products, the
 *   adjoint window sum of dy y / s (1 / s by rcp14 and a Newton step) and the alpha / beta
 *   blend in float. lrf_powf, measured against libm's pow in double over every float s in
 *   [1e-5, 2^20] and every 7th float in [2^-40, 2^40] (4e8 values per exponent, a sweep program
 *   outside the tree that includes this file): beta 0.75 (rsqrt14 estimate, one Newton step on
 *   q^4 s^3 = 1) at most 1.92 ulp of the float result; 0.5 (rsqrt14 + Newton) 1.04 ulp; 1
 *   (rcp14 + Newton) 0.53 ulp; other exponents take the double table method lrf_pow8 below
 *   (error < 2^-40) rounded to float, 0.5 ulp. Whole outputs against ref, u = 2^-24, per element
 *   |cpu - ref| <= K u T with K = 6 + beta (n + 2) and T = |ref| + |beta_blend y_old| (+ |alpha dy
 *   s^-beta| + |alpha 2 beta alpha / n x| sum |dy y / s| backward); tests/impl/
 *   test_cpu_lrn_fast.c holds every element to it (largest err / (u T) seen 4.5). Lanes whose
 *   scale leaves [2^-40, 2^40] or is NaN (NaN / inf inputs, squares past float's range,
 *   negative alpha), whose power from the table method is not a normal float, or whose
 *   backward term or result is not finite, are recomputed in double exactly as the ref
 *   (lrf_slow_*): those keep the ref's bits, NaN and inf propagate as the ref's. The beta = 0
 *   path (s^-0 = 1, exact) is unreachable through the API (cudnnSetLRNDescriptor wants
 *   beta >= 0.01). Every rounding is in a fixed order per element: 1 and 2 threads give the
 *   same bits. Speed: the float rows run at ~0.5 (NHWC) and ~0.35 (NCHW) of one thread's
 *   bandwidth on the shared 2-core machine, against 0.07-0.18 for the double rows before.
 * - The common case (beta 0.75, alpha 1, blend beta 0; window 5 for the pixel rows) runs loops
 *   with the per-vector tests of the exponent, the blend and the store kind hoisted and the
 *   window sums written out (lrf_fwd_row34, lrf_bwd_terms34, lrf_bwd_out1, lrf_pixsum5,
 *   lrf_sqsum5): the general loops' operations in the same order, so the same bits; the lanes
 *   to redo are collected per row and fixed after it (beta 0: the store loses nothing). CPU
 *   time of n1c64h28w28 in L2, one thread: forward 0.031 -> 0.022 ms (both layouts), backward
 *   0.060 -> 0.048 ms (NCHW), 0.056 -> 0.047 (NHWC).
 * - The common NCHW forward (beta 0.75, alpha 1, blend beta 0; any window) reads its window rows
 *   in place (lrf_fwd_plane34, mode 3): units of up to LRF_PBIG positions (a whole 112 x 112
 *   plane), each x row read from memory once in one long run and kept in L2 for the n outputs
 *   that use it, outputs streamed from registers from their first line boundary. Same
 *   operations as the ring rows below, same bits. n8c64h112w112, one thread, dnnbench median:
 *   3.14-3.27 -> 1.17-1.41 ms (0.44 -> ~0.95 of the bandwidth; 2026-12-01). The common NCHW
 *   backward (lrf_bwd_plane34, mode 4) reads x in place too and computes the terms of channel c
 *   and the output of channel c - lb in one pass per step, straight to the output: same bits,
 *   ~10% faster (it stays compute-bound: ~0.5 ns per element with the data in L2).
 * - The common NCHW backward (mode 4) does NOT read y (product decision 2026-12-01, cpu-lrn5):
 *   the API's y is the forward's output of x, and mode 4 computes it again as x s^-beta from
 *   the x row and the power it already has (one multiply per vector: y' = x * p, the
 *   forward's own rounding, so a y from this backend's forward gives the bits of reading it).
 *   A y from elsewhere (ref's double rounded once) differs from y' by the forward's bound
 *   K u |y|, which enters the adjoint sum's term: docs/testing.md's cpu LRN row counts that
 *   term twice for these rows. A y that is not the forward of x is outside the API's contract
 *   and is ignored here. Lanes redone by lrf_slow_bwd (scales out of range, non-finite terms)
 *   still read y (the ref's formula and bits). Why: with both cores the line was bound by its
 *   four streams (x, y, dy, dx: 103 MB physical against dnnbench's 77 MB of compulsory
 *   traffic, y being recomputable): a stub with the same accesses and no arithmetic took as
 *   long as the real loop. n8c64h112w112, 2 threads, dnnbench median: 2.40-2.51 -> 2.15-2.25
 *   ms (0.66 -> 0.75 of 47 GB/s); one thread 4.69-4.95 -> 4.18-4.36 ms. The steady loop
 *   (lrf_bwd_run5) also has no calls left in it (lanes to redo and unaligned streaming stores
 *   leave it): with lrf_fix_bwd inside, the compiler kept vectors and pointers on the stack.
 * - The common NHWC backward (beta 0.75, alpha 1, blend beta 0, window 5, C <= 64: pixel rows
 *   of up to four vectors; lrf_bwd_pix5) keeps the pixel's vectors, powers and terms in
 *   registers instead of lrf_bwd_unit's stack buffers and does NOT read y either (the same
 *   product decision as mode 4: y' = x s^-beta from the power it already has, the window-5
 *   pixel forward's own operations and bits). n8c64h112w112, dnnbench median, 2026-12-01,
 *   interleaved with the previous library: one thread 4.57-4.71 -> 3.73-3.83 ms (the general
 *   pixel loop was bound by its arithmetic and its reloads from a large frame), two threads
 *   2.41-2.56 -> 1.89-2.10 ms (0.65 -> 0.78-0.87 of 47 GB/s); the same loop reading y ran
 *   2.24-2.56 ms at two threads.
 * - Plane rows (NCHW): a unit is up to LRF_PMAX adjacent positions of one image; channel rows
 *   pass through rings (x: n rows; backward also w and dy s^-beta rows), each row read once in
 *   a run of up to 4 KiB, the next row prefetched across the arithmetic of the current one;
 *   beta = 0 outputs of 16 MiB or more go out as streaming stores of whole rows. Pixel rows
 *   (NHWC): lanes along the channels of one pixel, the window's neighbours by two-vector
 *   permutes of registers (no stack round trip), 16 pixels per unit.
 * - Loads of full vectors are plain loads (memop.h's fd_cpu_mload_ps), masked only for a
 *   partial last vector: with zero-masked loads throughout, the hardware prefetchers of the
 *   Zen 5 machine did not follow the pixel rows' single stream (NHWC forward, n8c64h112w112,
 *   one thread: 9.2 -> 1.65 ms).
 * - FLOAT on AVX2 + FMA without the AVX-512 set, or with FREEDNN_CPU_ISA=avx2 (the lra_* rows):
 *   the common case only (beta 0.75, alpha 1, blend beta 0; any window; NCHW-like plane rows
 *   and NHWC-like pixel rows as above), under the same product decisions and the same bound:
 *   float window sums, s^-0.75 from rsqrtps (12 bits) by q0 = r^2 rsqrt(r) and a second-order
 *   correction of q0 (1 - e)^(-1/4) (lra_pow34: 1.67 ulp at worst over the sweep above, against
 *   1.92 for the AVX-512 step), 1 / s from the same r^2 by a second-order correction (0.50 ulp),
 *   and backward y = x s^-beta from the power instead of reading y (on the pixel rows for every
 *   window and C, not only window 5 and C <= 64). Lanes to redo as on AVX-512. rsqrtps is not
 *   specified bit for bit (Intel and AMD differ): the same bits for any thread count on one
 *   machine; the analysis holds for any estimate within the documented 1.5 2^-12 (measured on
 *   Zen 3 only). Other exponents and blends take the general rows.
 *   Thread CPU time per element, one thread, on the shared Zen 3 machine (2026-12-04; its wall
 *   times were swamped by other jobs), general rows -> AVX2 rows: n1c64h28w28 (in L2) forward
 *   7.2 -> 0.57 ns (NCHW), 7.8 -> 0.64 (NHWC), backward 10.2 -> 1.21 (NCHW), 11.0 -> 1.29
 *   (NHWC); n8c64h112w112 forward 9.0 -> 0.60-0.62 (NCHW), 8.1 -> 0.72-0.75 (NHWC), backward
 *   12.3 -> 1.26-1.29 (NCHW), 12.0 -> 1.37-1.39 (NHWC). Steady loops without calls
 *   (lra_fwd_run5, lra_bwd_run5) as on AVX-512; the pixel rows test their lanes once per pixel.
 * - The general rows (DOUBLE, HALF, BFLOAT16, other layouts, and FLOAT outside the AVX-512 and
 *   AVX2 rows or with FREEDNN_CPU_ISA=generic): the ref's sums in its order, in double. The ref
 * recomputes every window sum in channel order starting from 0.0; here the channels of a group of
 *   positions are loaded once into stack buffers with n - 1 zero rows around them, and every
 *   window is summed over all n rows of the padded buffer in the same order (+0.0 terms change
 *   no bit). Backward uses the scales and the dy * y / s terms once per channel. pow: for FLOAT
 *   lrf_pow1 (tables of 16 entries, degree-7 log2 and degree-5 exp2 polynomials in double,
 *   relative error below 2^-40) and for beta = 0.75 lrf_pow34_1 (float square roots and
 *   division, one Newton step in double), so float outputs equal the ref's but for rare last-bit
 *   flips; DOUBLE, HALF and BFLOAT16 keep libm's pow and the ref's bits. Their clones (AVX-512,
 *   AVX2, baseline) give the same bits.
 * - Lanes: up to LR_LANES positions per unit (along the outer dim with the smallest output
 *   stride); a position is computed by one thread: identical bits for any OMP_NUM_THREADS.
 *   Nothing allocates; no workspace.
 * FLOAT, DOUBLE, HALF, BFLOAT16, 4-d and 5-d, any non-negative strides; declines more than
 * LR_MAXC channels (the stack buffers) and other dtypes (ref serves).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include "../core/lrn.h"
#include "memop.h"

#define LR_LANES 16
#define LR_BUF 2048                        /* doubles per stack buffer */
#define LR_MAXC (LR_BUF - CUDNN_LRN_MAX_N) /* channels (plus the zero rows) per buffer */
#define LR_MAXT 4

typedef struct {
    int nt, no;
    int64_t C, cst[LR_MAXT];                            /* the channel dim */
    int64_t odim[FD_DIM_MAX], ost[LR_MAXT][FD_DIM_MAX]; /* outer dims but the lane dim */
    int64_t nl, lst[LR_MAXT];                           /* the lane dim */
    int64_t others, chunks, n;
    int lanes;
    cudnnDataType_t dt;
    size_t esz;
} lr_plan_t;

/* t[0] is the output. */
static void plan(lr_plan_t *s, const struct cudnnTensorStruct *const *t, int nt, unsigned win)
{
    memset(s, 0, sizeof *s);
    s->nt = nt;
    s->dt = t[0]->dtype;
    s->esz = fd_dtype_size(s->dt);
    s->C = t[0]->dim[1];
    s->n = 1;
    int lane_d = -1;
    for (int d = 0; d < t[0]->nb_dims; d++) {
        s->n *= t[0]->dim[d];
        if (d != 1 && t[0]->dim[d] > 1 && (lane_d < 0 || t[0]->stride[d] <= t[0]->stride[lane_d]))
            lane_d = d;
    }
    for (int i = 0; i < nt; i++)
        s->cst[i] = t[i]->stride[1];
    s->nl = 1;
    s->others = 1;
    for (int d = 0; d < t[0]->nb_dims; d++) {
        if (d == 1 || t[0]->dim[d] == 1)
            continue;
        if (d == lane_d) {
            s->nl = t[0]->dim[d];
            for (int i = 0; i < nt; i++)
                s->lst[i] = t[i]->stride[d];
        } else {
            s->odim[s->no] = t[0]->dim[d];
            for (int i = 0; i < nt; i++)
                s->ost[i][s->no] = t[i]->stride[d];
            s->no++;
            s->others *= t[0]->dim[d];
        }
    }
    int64_t l = s->nl < LR_LANES ? s->nl : LR_LANES;
    int64_t fit = LR_BUF / (s->C + win);
    l = l < fit ? l : fit;
    s->lanes = (int)(l > 0 ? l : 1);
    s->chunks = (s->nl + s->lanes - 1) / s->lanes;
}

static void unit_base(const lr_plan_t *s, int64_t u, int64_t *off, int *nl)
{
    int64_t o = u / s->chunks, c = u % s->chunks;
    for (int i = 0; i < s->nt; i++)
        off[i] = c * s->lanes * s->lst[i];
    for (int k = s->no - 1; k >= 0; k--) {
        int64_t j = o % s->odim[k];
        o /= s->odim[k];
        for (int i = 0; i < s->nt; i++)
            off[i] += j * s->ost[i][k];
    }
    int64_t left = s->nl - c * s->lanes;
    *nl = (int)(left < s->lanes ? left : s->lanes);
}

/* buf[c * nl + l] = channel c of lane l of tensor i (C * nl <= LR_BUF). */
static void load_cl(const lr_plan_t *s, int i, const void *p, int64_t off, int nl, double *buf)
{
    const char *b = (const char *)p + (size_t)off * s->esz;
    if (s->cst[i] == 1 && s->lst[i] != 1 && s->C > 1) { /* channels contiguous: per lane */
        double tmp[LR_BUF];
        for (int l = 0; l < nl; l++) {
            fd_cpu_load(s->dt, b + (size_t)(l * s->lst[i]) * s->esz, 1, (int)s->C, tmp);
            for (int64_t c = 0; c < s->C; c++)
                buf[c * nl + l] = tmp[c];
        }
    } else {
        for (int64_t c = 0; c < s->C; c++)
            fd_cpu_load(s->dt, b + (size_t)(c * s->cst[i]) * s->esz, s->lst[i], nl, buf + c * nl);
    }
}

static void store_cl(const lr_plan_t *s, void *p, int64_t off, int nl, const double *v,
                     double alpha, double beta)
{
    char *b = (char *)p + (size_t)off * s->esz;
    if (s->cst[0] == 1 && s->lst[0] != 1 && s->C > 1) {
        double tmp[LR_BUF];
        for (int l = 0; l < nl; l++) {
            for (int64_t c = 0; c < s->C; c++)
                tmp[c] = v[c * nl + l];
            fd_cpu_store(s->dt, b + (size_t)(l * s->lst[0]) * s->esz, 1, (int)s->C, tmp, alpha,
                         beta);
        }
    } else {
        for (int64_t c = 0; c < s->C; c++)
            fd_cpu_store(s->dt, b + (size_t)(c * s->cst[0]) * s->esz, s->lst[0], nl, v + c * nl,
                         alpha, beta);
    }
}

/* sc[c * nl + l] = k + alpha / n * (sum of x^2 over the window of c), from sq: the squares
 * with lb zero rows before and la after (rows c .. c + n - 1 of sq are c's window). */
FD_CPU_CLONES static void scales(const fd_lrn_problem_t *p, int64_t C, int nl,
                                 const double *restrict sq, double *restrict sc)
{
    const int win = (int)p->n;
    for (int64_t c = 0; c < C; c++) {
        double sum[LR_LANES];
        for (int l = 0; l < nl; l++)
            sum[l] = 0.0;
        for (int k = 0; k < win; k++)
            for (int l = 0; l < nl; l++)
                sum[l] += sq[(c + k) * nl + l];
        for (int l = 0; l < nl; l++)
            sc[c * nl + l] = p->k + p->alpha / p->n * sum[l];
    }
}

/* ---- pow(s, y) for FLOAT (lrf_pow1 scalar, lrf_pow8 AVX-512: the same operations) ---------- */

/* s^y = 2^(y log2 s), table-driven so that short polynomials suffice: log2 s = e + log2(1 / INV[j])
 * + log2(1 + r), r = m INV[j] - 1 (one FMA; m the mantissa in [1, 2), j its top 4 bits, INV[j]
 * the reciprocal of the middle of j's interval rounded to double, so |r| <= 1/33) with log2(1 + r)
 * to degree 7 (truncation 2^-43); 2^t = 2^(k/16) 2^f, k = nearest(16 t), |f| <= 1/32, 2^f to
 * degree 5 (truncation 2^-42), 2^(k/16) = 2^(k >> 4) EX[k & 15]. Tables rounded to nearest from
 * 60-digit values. Relative error below 2^-40 (measured 2^-41.7 at worst against powl over
 * 2.4e7 random s in [2^-20, 2^60] and six exponents, a check outside the tree), so a float
 * output x s^-beta differs from the ref's by at most one rounding flip. Every step is an IEEE
 * operation or an explicit fma (correctly rounded on every ISA; the file compiles without
 * contraction), so lrf_pow1 and lrf_pow8 give the same bits: the AVX-512 rows, the clones and the
 * generic build agree. Edge inputs (s not a positive normal finite double, |y log2 s| > 1000) take
 * libm's pow, as the ref does. */
static const double lrf_inv[16] = {
    0x1.f07c1f07c1f08p-1, 0x1.d41d41d41d41dp-1, 0x1.bacf914c1bad0p-1, 0x1.a41a41a41a41ap-1,
    0x1.8f9c18f9c18fap-1, 0x1.7d05f417d05f4p-1, 0x1.6c16c16c16c17p-1, 0x1.5c9882b931057p-1,
    0x1.4e5e0a72f0539p-1, 0x1.4141414141414p-1, 0x1.3521cfb2b78c1p-1, 0x1.29e4129e4129ep-1,
    0x1.1f7047dc11f70p-1, 0x1.15b1e5f75270dp-1, 0x1.0c9714fbcda3bp-1, 0x1.0410410410410p-1};
static const double lrf_lg[16] = {
    0x1.6bad3758efd81p-5, 0x1.08c588cda79e5p-3, 0x1.acf5e2db4ec91p-3, 0x1.24407ab0e073ap-2,
    0x1.6e221cd9d0cddp-2, 0x1.b47ebf73882a1p-2, 0x1.f7a8568cb06cep-2, 0x1.1bf311e95d00ep-1,
    0x1.3abb3faa02168p-1, 0x1.5848226989d34p-1, 0x1.74b1fd64e0754p-1, 0x1.900e6160002cep-1,
    0x1.aa708f58014d4p-1, 0x1.c3e9ca2e1a055p-1, 0x1.dc899ab3ff56cp-1, 0x1.f45e08bcf0656p-1};
static const double lrf_ex[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
#define LRF_L1 0x1.71547652b82fep+0 /* (-1)^(i+1) / (i ln 2) */
#define LRF_L2 -0x1.71547652b82fep-1
#define LRF_L3 0x1.ec709dc3a03fdp-2
#define LRF_L4 -0x1.71547652b82fep-2
#define LRF_L5 0x1.2776c50ef9bfep-2
#define LRF_L6 -0x1.ec709dc3a03fdp-3
#define LRF_L7 0x1.a61762a7aded9p-3
#define LRF_E1 0x1.62e42fefa39efp-1 /* ln2^i / i! */
#define LRF_E2 0x1.ebfbdff82c58fp-3
#define LRF_E3 0x1.c6b08d704a0c0p-5
#define LRF_E4 0x1.3b2ab6fba4e77p-7
#define LRF_E5 0x1.5d87fe78a6731p-10
#define LRF_SHIFT 0x1.8p52
#define LRF_SHIFT_BITS 0x4338000000000000ll

static inline double lrf_pow1(double s, double y)
{
    if (!(s >= 0x1p-1022 && s <= 0x1.fffffffffffffp1023))
        return pow(s, y);
    uint64_t b;
    memcpy(&b, &s, sizeof b);
    const int64_t e = (int64_t)(b >> 52) - 1023;
    const int j = (int)((b >> 48) & 15);
    const uint64_t mb = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double m;
    memcpy(&m, &mb, sizeof m);
    const double r = fma(m, lrf_inv[j], -1.0);
    double q = LRF_L7;
    q = fma(q, r, LRF_L6);
    q = fma(q, r, LRF_L5);
    q = fma(q, r, LRF_L4);
    q = fma(q, r, LRF_L3);
    q = fma(q, r, LRF_L2);
    q = fma(q, r, LRF_L1);
    const double lg = ((double)e + lrf_lg[j]) + q * r;
    const double t = y * lg;
    if (!(t >= -1000.0 && t <= 1000.0))
        return pow(s, y);
    const double sh = t * 16.0 + LRF_SHIFT;
    const double f = t - (sh - LRF_SHIFT) * 0.0625;
    int64_t k;
    memcpy(&k, &sh, sizeof k);
    k -= LRF_SHIFT_BITS;
    double p = LRF_E5;
    p = fma(p, f, LRF_E4);
    p = fma(p, f, LRF_E3);
    p = fma(p, f, LRF_E2);
    p = fma(p, f, LRF_E1);
    p = fma(p, f, 1.0);
    double v = lrf_ex[k & 15] * p;
    uint64_t vb;
    memcpy(&vb, &v, sizeof vb);
    vb += (uint64_t)(k >> 4) << 52;
    memcpy(&v, &vb, sizeof v);
    return v;
}

/* s^-0.75, the usual LRN exponent, without log and exp: q = 1 / (sqrt(s) sqrt(sqrt(s))) in float
 * (IEEE square roots and division: the same bits on every ISA; relative error below 2^-21), then
 * one Newton step in double on p^4 s^3 = 1: p = q - q (q^4 s^3 - 1) / 4, relative error below
 * 2^-40. s outside float's normal range takes lrf_pow1. */
static inline double lrf_pow34_1(double s)
{
    if (!(s >= 0x1p-126 && s <= 0x1p127))
        return lrf_pow1(s, -0.75);
    const float sf = (float)s, a = sqrtf(sf), b = sqrtf(a);
    const double q = (double)(1.0f / (a * b));
    const double q2 = q * q, q4 = q2 * q2, s3 = (s * s) * s;
    const double e = fma(q4, s3, -1.0);
    return fma(e * -0.25, q, q);
}

#if defined(__GNUC__) && defined(__x86_64__)
#define LRF_X86 1
#include <immintrin.h>
#include <stdlib.h>
#define LRF_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,fma")))
#else
#define LRF_X86 0
#endif

#if LRF_X86
/* The rows this call may take: 2 the AVX-512 rows, 1 the AVX2 rows (a CPU with AVX2 and FMA but
 * not the AVX-512 set, or FREEDNN_CPU_ISA=avx2), 0 neither (FREEDNN_CPU_ISA=generic, or an
 * older CPU: the general rows). Read per call: the tests compare the paths in one process. */
static int lrf_isa(void)
{
    static int cpu = -1; /* a benign race: every thread stores the same value */
    if (cpu < 0) {
        __builtin_cpu_init();
        const int a2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        const int a512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
        cpu = !a2 ? 0 : a512 ? 2 : 1;
    }
    const char *cap = getenv("FREEDNN_CPU_ISA");
    const int lim = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
    return cpu < lim ? cpu : lim;
}

/* lrf_pow1 on 8 lanes, the same operations in the same order. */
LRF_AVX512 static inline __m512d lrf_pow8(__m512d s, double y)
{
    const __m512i b = _mm512_castpd_si512(s);
    const __m512i e = _mm512_sub_epi64(_mm512_srli_epi64(b, 52), _mm512_set1_epi64(1023));
    const __m512i j = _mm512_srli_epi64(b, 48); /* permutes read the low 4 bits */
    const __m512d m = _mm512_castsi512_pd(
        _mm512_or_si512(_mm512_and_si512(b, _mm512_set1_epi64(0x000fffffffffffffll)),
                        _mm512_set1_epi64(0x3ff0000000000000ll)));
    const __m512d inv =
        _mm512_permutex2var_pd(_mm512_loadu_pd(lrf_inv), j, _mm512_loadu_pd(lrf_inv + 8));
    const __m512d lgc =
        _mm512_permutex2var_pd(_mm512_loadu_pd(lrf_lg), j, _mm512_loadu_pd(lrf_lg + 8));
    const __m512d r = _mm512_fmadd_pd(m, inv, _mm512_set1_pd(-1.0));
    __m512d q = _mm512_set1_pd(LRF_L7);
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L6));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L5));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L4));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L3));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L2));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L1));
    const __m512d lg =
        _mm512_add_pd(_mm512_add_pd(_mm512_cvtepi64_pd(e), lgc), _mm512_mul_pd(q, r));
    const __m512d t = _mm512_mul_pd(_mm512_set1_pd(y), lg);
    const __m512d sh =
        _mm512_add_pd(_mm512_mul_pd(t, _mm512_set1_pd(16.0)), _mm512_set1_pd(LRF_SHIFT));
    const __m512d f = _mm512_sub_pd(
        t, _mm512_mul_pd(_mm512_sub_pd(sh, _mm512_set1_pd(LRF_SHIFT)), _mm512_set1_pd(0.0625)));
    const __m512i k = _mm512_sub_epi64(_mm512_castpd_si512(sh), _mm512_set1_epi64(LRF_SHIFT_BITS));
    __m512d p = _mm512_set1_pd(LRF_E5);
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(LRF_E4));
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(LRF_E3));
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(LRF_E2));
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(LRF_E1));
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(1.0));
    const __m512d ex =
        _mm512_permutex2var_pd(_mm512_loadu_pd(lrf_ex), k, _mm512_loadu_pd(lrf_ex + 8));
    __m512i v = _mm512_castpd_si512(_mm512_mul_pd(ex, p));
    v = _mm512_add_epi64(v, _mm512_slli_epi64(_mm512_srai_epi64(k, 4), 52));
    /* edge lanes: libm, as lrf_pow1 */
    const __mmask8 ok = _mm512_cmp_pd_mask(s, _mm512_set1_pd(0x1p-1022), _CMP_GE_OQ) &
                        _mm512_cmp_pd_mask(s, _mm512_set1_pd(0x1.fffffffffffffp1023), _CMP_LE_OQ) &
                        _mm512_cmp_pd_mask(t, _mm512_set1_pd(-1000.0), _CMP_GE_OQ) &
                        _mm512_cmp_pd_mask(t, _mm512_set1_pd(1000.0), _CMP_LE_OQ);
    __m512d res = _mm512_castsi512_pd(v);
    if (ok != 0xff) {
        double sv[8], rv[8];
        _mm512_storeu_pd(sv, s);
        _mm512_storeu_pd(rv, res);
        for (int i = 0; i < 8; i++)
            if (!((ok >> i) & 1))
                rv[i] = pow(sv[i], y);
        res = _mm512_loadu_pd(rv);
    }
    return res;
}

/* ---- the AVX-512 rows (FLOAT, packed spatial dims): float arithmetic (the AVX2 rows below
 * share the plan, the scalar fixes and the modes 3 / 4 units) --------------------------------- */

/* Two layouts, each read with full vectors: "plane" (NCHW-like: the spatial dims packed with unit
 * stride; a unit is up to LRF_PMAX adjacent positions of one image, all channels, lanes along
 * the positions, channel rows in float rings) and "pixel" (NHWC-like: unit channel stride,
 * spatial dims packed over a pixel stride; a unit is 16 pixels, lanes along the channels,
 * the window's neighbours by two-vector permutes). Sums, scale, power, products and blend in
 * float (see the file header for the error bound); lanes whose scale falls outside
 * [LRF_SMIN, LRF_SMAX] (NaN, infinities, squares past float's range, a negative alpha) are
 * recomputed in double as the ref does (lrf_slow_*), so they keep the ref's bits. A position is
 * computed by one thread, in a fixed order: identical bits for any OMP_NUM_THREADS. */
#define LRF_BUF (LR_MAXC + 80) /* floats per pixel buffer (C + window + three padding vectors) */
#define LRF_RING 16384         /* floats of the plane rows' rings (64 KiB) */
#define LRF_PMAX 1024          /* positions per plane unit at most: a 4 KiB row */
#define LRF_PBIG 16384         /* positions per unit of the in-place forward rows (mode 3) */
#define LRF_BW 13312           /* floats of the fused backward's rings (mode 4: 52 KiB) */
#define LRF_BWMAX 2048         /* positions per unit of the fused backward at most */
#define LRF_SMIN 0x1p-40f
#define LRF_SMAX 0x1p40f

typedef struct {
    int mode; /* 1 plane, 2 pixel, 3 / 4 plane rows of the common forward / backward (x in place) */
    int64_t N, C, S;     /* images, channels, positions */
    int64_t pw;          /* positions per unit */
    int nt;              /* streaming stores for the output */
    int lock;            /* AVX2 backward: vectors in lockstep (0: FREEDNN_CPU_LRN_LOCK=0) */
    int64_t s0[LR_MAXT]; /* per tensor: image stride */
    int64_t s1[LR_MAXT]; /* channel stride */
    int64_t ps[LR_MAXT]; /* position stride (pixel) */
} lrf_plan_t;

/* 1 when tensor t addresses position sp at sp * ps (the spatial dims packed over ps). */
static int lrf_packed(const struct cudnnTensorStruct *t, int64_t ps)
{
    int64_t want = ps;
    for (int d = t->nb_dims - 1; d >= 2; d--) {
        if (t->dim[d] > 1 && t->stride[d] != want)
            return 0;
        want *= t->dim[d];
    }
    return 1;
}

static int lrf_plan(lrf_plan_t *f, const struct cudnnTensorStruct *const *t, int nt, unsigned win)
{
    if (t[0]->dtype != CUDNN_DATA_FLOAT)
        return 0;
    f->N = t[0]->dim[0];
    f->C = t[0]->dim[1];
    f->S = 1;
    for (int d = 2; d < t[0]->nb_dims; d++)
        f->S *= t[0]->dim[d];
    int plane = 1, pixel = 1;
    for (int i = 0; i < nt; i++) {
        plane &= lrf_packed(t[i], 1);
        pixel &= (t[i]->stride[1] == 1 || f->C == 1) &&
                 lrf_packed(t[i], t[i]->stride[t[i]->nb_dims - 1]) &&
                 t[i]->stride[t[i]->nb_dims - 1] >= f->C;
        f->s0[i] = t[i]->stride[0];
        f->s1[i] = t[i]->stride[1];
        f->ps[i] = t[i]->stride[t[i]->nb_dims - 1];
    }
    /* beta = 0 outputs of FD_CPU_NT_MIN bytes or more are written with streaming stores (the
     * output overlaps no input: lrn.h), so their lines are not read first; set by lrf_run */
    f->nt = 0;
    /* plane: the longest run (up to LRF_PMAX) whose three backward rings fit LRF_RING; pixel:
     * 16 pixels per unit */
    const int64_t ring_rows = 2 * (int64_t)win + (win - 1) / 2 + 1;
    int64_t pw = LRF_RING / ring_rows / 16 * 16;
    pw = pw < LRF_PMAX ? pw : LRF_PMAX;
    if (plane && win <= CUDNN_LRN_MAX_N) {
        f->mode = 1, f->pw = pw;
    } else if (pixel && f->C + win + 48 <= LRF_BUF) {
        f->mode = 2, f->pw = 16;
    } else {
        return 0;
    }
    return 1;
}

static inline __mmask16 lrf_lanes(int64_t n)
{
    return n >= 16 ? (__mmask16)0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1u);
}

/* s^-beta on 16 float lanes, relative error a few 2^-24 (file header), for s in
 * [LRF_SMIN, LRF_SMAX]. beta 0.75: q0 = r^2 rsqrt(r), r = rsqrt(s) (rsqrt14: relative error
 * below 3.5 2^-14), then one Newton step on q^4 s^3 = 1 written as q + q / 4 (1 - m^3 q) with
 * m = q s (~ s^0.25: no overflow for s up to 2^40). 0.5: rsqrt14 and one Newton step. 1:
 * rcp14 and one Newton step. 0: 1 (pow(s, -0) is 1 for every s, NaN included). Others: the
 * double table method lrf_pow8 on each half, rounded to float. */
LRF_AVX512 static inline __m512 lrf_powf(__m512 s, double beta)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    if (beta == 0.75) {
        const __m512 r = _mm512_rsqrt14_ps(s);
        const __m512 q = _mm512_mul_ps(_mm512_mul_ps(r, r), _mm512_rsqrt14_ps(r));
        const __m512 m = _mm512_mul_ps(q, s);
        const __m512 e = _mm512_fnmadd_ps(_mm512_mul_ps(_mm512_mul_ps(m, m), m), q, one);
        return _mm512_fmadd_ps(_mm512_mul_ps(q, _mm512_set1_ps(0.25f)), e, q);
    }
    if (beta == 0.5) {
        const __m512 r = _mm512_rsqrt14_ps(s);
        const __m512 e = _mm512_fnmadd_ps(_mm512_mul_ps(s, r), r, one);
        return _mm512_fmadd_ps(_mm512_mul_ps(r, _mm512_set1_ps(0.5f)), e, r);
    }
    if (beta == 1.0) {
        const __m512 r = _mm512_rcp14_ps(s);
        return _mm512_fmadd_ps(r, _mm512_fnmadd_ps(s, r, one), r);
    }
    if (beta == 0.0)
        return one;
    const __m512d lo = lrf_pow8(_mm512_cvtps_pd(_mm512_castps512_ps256(s)), -beta);
    const __m512d hi = lrf_pow8(
        _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1))), -beta);
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

/* 1 / s: rcp14 and one Newton step (relative error about 2^-23). */
LRF_AVX512 static inline __m512 lrf_rcp(__m512 s)
{
    const __m512 r = _mm512_rcp14_ps(s);
    return _mm512_fmadd_ps(r, _mm512_fnmadd_ps(s, r, _mm512_set1_ps(1.0f)), r);
}

/* 1 when lrf_powf computes s^-beta by the double table method (other exponents). */
static inline int lrf_gen(double beta)
{
    return beta != 0.75 && beta != 0.5 && beta != 1.0 && beta != 0.0;
}

/* Lanes of m whose scale is in [LRF_SMIN, LRF_SMAX] (NaN is not) and, for the table method
 * (gen), whose power pw is a normal float: a power that float cannot hold but the ref's
 * double product x s^-beta can must be recomputed. */
LRF_AVX512 static inline __mmask16 lrf_sok(__mmask16 m, __m512 s, __m512 pw, int gen)
{
    __mmask16 ok = _mm512_mask_cmp_ps_mask(m, s, _mm512_set1_ps(LRF_SMIN), _CMP_GE_OQ) &
                   _mm512_cmp_ps_mask(s, _mm512_set1_ps(LRF_SMAX), _CMP_LE_OQ);
    if (gen)
        ok &= _mm512_cmp_ps_mask(pw, _mm512_set1_ps(0x1p-126f), _CMP_GE_OQ) &
              _mm512_cmp_ps_mask(pw, _mm512_set1_ps(0x1p127f), _CMP_LE_OQ);
    return ok;
}

/* Stores lanes m of r at o: a streaming store for a full, aligned vector when nt. */
LRF_AVX512 static inline void lrf_st(float *o, __mmask16 m, __m512 r, int nt)
{
    if (nt && m == 0xffff && ((uintptr_t)o & 63) == 0)
        _mm512_stream_ps(o, r);
    else
        fd_cpu_mstore_ps(o, m, r);
}

/* n floats from src to dst with streaming stores (ordinary masked stores for the unaligned
 * head and the tail). */
LRF_AVX512 static void lrf_stream_row(float *dst, const float *src, int64_t n)
{
    int64_t i = (int64_t)(((64 - ((uintptr_t)dst & 63)) & 63) / 4);
    if (((uintptr_t)dst & 3) != 0)
        i = n; /* not float-aligned: no streaming */
    i = i < n ? i : n;
    for (int64_t h = 0; h < i; h += 16)
        fd_cpu_mstore_ps(dst + h, lrf_lanes(i - h), _mm512_loadu_ps(src + h));
    for (; i + 16 <= n; i += 16)
        _mm512_stream_ps(dst + i, _mm512_loadu_ps(src + i));
    if (i < n)
        fd_cpu_mstore_ps(dst + i, lrf_lanes(n - i), _mm512_loadu_ps(src + i));
}

/* alpha v + beta y (y read only when beta != 0), lanes m. */
LRF_AVX512 static inline __m512 lrf_blend(__m512 v, const float *y, __mmask16 m, float alpha,
                                          float beta)
{
    if (alpha != 1.0f)
        v = _mm512_mul_ps(_mm512_set1_ps(alpha), v);
    if (beta != 0.0f)
        v = _mm512_fmadd_ps(_mm512_set1_ps(beta), fd_cpu_mload_ps(m, y), v);
    return v;
}

/* The ref's scale of channel c in double (channel stride cs from x, channel 0). */
static double lrf_slow_scale(const fd_lrn_problem_t *p, const float *x, int64_t cs, int64_t C,
                             int64_t c)
{
    const int lb = (int)(p->n - 1) / 2, la = (int)p->n - 1 - lb;
    const int64_t lo = c - lb < 0 ? 0 : c - lb, hi = c + la > C - 1 ? C - 1 : c + la;
    double sum = 0.0;
    for (int64_t j = lo; j <= hi; j++) {
        const double v = x[j * cs];
        sum += v * v;
    }
    return p->k + p->alpha / p->n * sum;
}

/* The ref's blend and rounding of one output. */
static float lrf_slow_store(const fd_lrn_args_t *a, double v, const float *y)
{
    double r = a->alpha * v;
    if (a->beta != 0.0)
        r += a->beta * (double)*y;
    return (float)r;
}

/* Forward output of channel c at one position, in double as the ref (x, y: channel 0). */
static float lrf_slow_fwd(const fd_lrn_problem_t *p, const fd_lrn_args_t *a, const float *x,
                          int64_t xcs, const float *y, int64_t ycs, int64_t C, int64_t c)
{
    const double s = lrf_slow_scale(p, x, xcs, C, c);
    return lrf_slow_store(a, (double)x[c * xcs] * pow(s, -p->beta), y + c * ycs);
}

/* Backward output of channel i at one position, in double as the ref; t: dx, x, y, dy at
 * channel 0, cs their channel strides. */
static float lrf_slow_bwd(const fd_lrn_problem_t *p, const fd_lrn_args_t *a, const float *const *t,
                          const int64_t *cs, int64_t C, int64_t i)
{
    const int lb = (int)(p->n - 1) / 2, la = (int)p->n - 1 - lb;
    const int64_t lo = i - la < 0 ? 0 : i - la, hi = i + lb > C - 1 ? C - 1 : i + lb;
    const double coef = 2.0 * p->beta * p->alpha / p->n;
    double acc = 0.0;
    for (int64_t c = lo; c <= hi; c++)
        acc += (double)t[3][c * cs[3]] * (double)t[2][c * cs[2]] /
               lrf_slow_scale(p, t[1], cs[1], C, c);
    const double s = lrf_slow_scale(p, t[1], cs[1], C, i);
    const double v = (double)t[3][i * cs[3]] * pow(s, -p->beta) - coef * (double)t[1][i * cs[1]] * acc;
    return lrf_slow_store(a, v, t[0] + i * cs[0]);
}

/* Lanes bd of v (up to 16) recomputed by lrf_slow_bwd (plane rows: lane l is position b + l of
 * the t[] bases, channel i); the AVX-512 and AVX2 rows' scalar part. */
static void lrf_fix_bwd_v(float *v, unsigned bd, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                          const float *const *t, const int64_t *cs, int64_t C, int64_t i, int64_t b)
{
    for (int l = 0; l < 16; l++)
        if (bd >> l & 1) {
            const float *tl[4] = {t[0] + b + l, t[1] + b + l, t[2] + b + l, t[3] + b + l};
            v[l] = lrf_slow_bwd(p, a, tl, cs, C, i);
        }
}

LRF_AVX512 static __m512 lrf_fix_bwd(__m512 r, __mmask16 bd, const fd_lrn_problem_t *p,
                                     const fd_lrn_args_t *a, const float *const *t,
                                     const int64_t *cs, int64_t C, int64_t i, int64_t b)
{
    float v[16];
    _mm512_storeu_ps(v, r);
    lrf_fix_bwd_v(v, bd, p, a, t, cs, C, i, b);
    return _mm512_loadu_ps(v);
}

/* Lanes bad of v (up to 16) recomputed by lrf_slow_fwd (lane l: position base + l, channel c
 * for plane; channel c0 + l for pixel). */
static void lrf_fix_fwd_v(float *v, unsigned bad, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                          const float *x, int64_t xcs, int64_t xls, const float *y, int64_t ycs,
                          int64_t yls, int64_t C, int64_t c, int pixel)
{
    for (int l = 0; l < 16; l++)
        if ((bad >> l) & 1)
            v[l] = pixel ? lrf_slow_fwd(p, a, x, xcs, y, ycs, C, c + l)
                         : lrf_slow_fwd(p, a, x + l * xls, xcs, y + l * yls, ycs, C, c);
}

LRF_AVX512 static __m512 lrf_fix_fwd(__m512 r, __mmask16 bad, const fd_lrn_problem_t *p,
                                     const fd_lrn_args_t *a, const float *x, int64_t xcs,
                                     int64_t xls, const float *y, int64_t ycs, int64_t yls,
                                     int64_t C, int64_t c, int pixel)
{
    float v[16];
    _mm512_storeu_ps(v, r);
    lrf_fix_fwd_v(v, bad, p, a, x, xcs, xls, y, ycs, yls, C, c, pixel);
    return _mm512_loadu_ps(v);
}

/* Plane rows: a unit is np <= P adjacent positions of one image; the channel rows pass through
 * small rings (row j at slot j % size), each row read from the tensor once, in a run of P
 * floats, the next row prefetched a line per vector of the arithmetic on this one. The earlier layout, all C rows of 16 to 64 positions in stack buffers, read 64
 * planes in short pieces per unit (the loads stalled without overlapping the arithmetic, 0.25
 * of the bandwidth against 0.5 for the same work on NHWC). Lanes past np are loaded as zero. */
LRF_AVX512 static void lrf_ring_load(float *dst, const float *src, int64_t np)
{
    for (int64_t b = 0; b < np; b += 16)
        _mm512_storeu_ps(dst + b, fd_cpu_mload_ps(lrf_lanes(np - b), src + b));
}

/* The ring slots of rows j0 .. j1 clipped to [0, C - 1], in order; returns their count. */
static inline int lrf_ring_rows(const float *ring, int64_t P, int size, int64_t j0, int64_t j1,
                                int64_t C, const float **rows)
{
    int nr = 0;
    for (int64_t j = j0 < 0 ? 0 : j0; j <= j1 && j < C; j++)
        rows[nr++] = ring + (j % size) * P;
    return nr;
}

/* Sum of squares of lanes b .. b + 15 of the rows, in order (nr >= 1). */
LRF_AVX512 static inline __m512 lrf_sqsum(const float *const *rows, int nr, int64_t b)
{
    __m512 v = _mm512_loadu_ps(rows[0] + b), s = _mm512_mul_ps(v, v);
    for (int k = 1; k < nr; k++) {
        v = _mm512_loadu_ps(rows[k] + b);
        s = _mm512_fmadd_ps(v, v, s);
    }
    return s;
}

/* Pixel windows: idx[t] selects, for lane j, element j + t - off of the channel run
 * (prev | cur | next): from (prev, cur) when t < off, (cur, next) when t > off. */
LRF_AVX512 static void lrf_shift_idx(__m512i *idx, int win, int off)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (int t = 0; t < win; t++)
        idx[t] = _mm512_add_epi32(iota, _mm512_set1_epi32(t < off ? 16 + t - off : t - off));
}

LRF_AVX512 static inline __m512 lrf_pixsum(__m512 prev, __m512 cur, __m512 next,
                                           const __m512i *idx, int win, int off)
{
    __m512 s = _mm512_setzero_ps();
    for (int t = 0; t < win; t++) {
        const __m512 v = t < off    ? _mm512_permutex2var_ps(prev, idx[t], cur)
                         : t == off ? cur
                                    : _mm512_permutex2var_ps(cur, idx[t], next);
        s = t == 0 ? v : _mm512_add_ps(s, v);
    }
    return s;
}

/* lrf_powf(s, 0.75), the same operations. */
LRF_AVX512 static inline __m512 lrf_pow34f(__m512 s)
{
    const __m512 r = _mm512_rsqrt14_ps(s);
    const __m512 q = _mm512_mul_ps(_mm512_mul_ps(r, r), _mm512_rsqrt14_ps(r));
    const __m512 m = _mm512_mul_ps(q, s);
    const __m512 e =
        _mm512_fnmadd_ps(_mm512_mul_ps(_mm512_mul_ps(m, m), m), q, _mm512_set1_ps(1.0f));
    return _mm512_fmadd_ps(_mm512_mul_ps(q, _mm512_set1_ps(0.25f)), e, q);
}

/* lrf_pixsum for win 5 (off 2): the same operations, written out. */
LRF_AVX512 static inline __m512 lrf_pixsum5(__m512 prev, __m512 cur, __m512 next,
                                            const __m512i *idx)
{
    __m512 s = _mm512_permutex2var_ps(prev, idx[0], cur);
    s = _mm512_add_ps(s, _mm512_permutex2var_ps(prev, idx[1], cur));
    s = _mm512_add_ps(s, cur);
    s = _mm512_add_ps(s, _mm512_permutex2var_ps(cur, idx[3], next));
    return _mm512_add_ps(s, _mm512_permutex2var_ps(cur, idx[4], next));
}

/* lrf_sqsum of five rows, the same operations. */
LRF_AVX512 static inline __m512 lrf_sqsum5(const float *r0, const float *r1, const float *r2,
                                           const float *r3, const float *r4, int64_t b)
{
    __m512 v = _mm512_loadu_ps(r0 + b), s = _mm512_mul_ps(v, v);
    v = _mm512_loadu_ps(r1 + b), s = _mm512_fmadd_ps(v, v, s);
    v = _mm512_loadu_ps(r2 + b), s = _mm512_fmadd_ps(v, v, s);
    v = _mm512_loadu_ps(r3 + b), s = _mm512_fmadd_ps(v, v, s);
    v = _mm512_loadu_ps(r4 + b), s = _mm512_fmadd_ps(v, v, s);
    return s;
}

/* One plane row of the common forward (beta 0.75, alpha 1, blend beta 0): the general loop's
 * operations (lrf_powf's beta 0.75 steps, lrf_sok's range test) with the per-vector tests of
 * beta, alpha and the store kind hoisted out; out is y's row or the streaming buffer. The
 * lanes to redo with the ref's double formula go to bad[] (per vector); returns 1 when any. */
LRF_AVX512 static int lrf_fwd_row34(const float *const *rows, int nr, const float *xc, float *out,
                                    int64_t np, __m512 va, __m512 vk, const float *nx,
                                    __mmask16 *bad)
{
    const __m512 smin = _mm512_set1_ps(LRF_SMIN), smax = _mm512_set1_ps(LRF_SMAX);
    __mmask16 any = 0;
    for (int64_t b = 0; b < np; b += 16) {
        if (nx)
            _mm_prefetch((const char *)(nx + b), _MM_HINT_T0);
        const __mmask16 m = lrf_lanes(np - b);
        const __m512 sq = nr == 5 ? lrf_sqsum5(rows[0], rows[1], rows[2], rows[3], rows[4], b)
                                  : lrf_sqsum(rows, nr, b);
        const __m512 s = _mm512_fmadd_ps(va, sq, vk);
        const __m512 res = _mm512_mul_ps(_mm512_loadu_ps(xc + b), lrf_pow34f(s));
        const __mmask16 ok = _mm512_mask_cmp_ps_mask(m, s, smin, _CMP_GE_OQ) &
                             _mm512_cmp_ps_mask(s, smax, _CMP_LE_OQ);
        const __mmask16 bd = m & ~ok;
        bad[b / 16] = bd;
        any |= bd;
        fd_cpu_mstore_ps(out + b, m, res);
    }
    return any != 0;
}

/* lrf_fwd_row34's value of positions b .. b + 15 (lanes m) from rows read in place (no
 * ring): full vectors in plain loads, a partial one zero-masked (the same operations on the
 * same values: lanes past the row were zeros in the ring too). *bad: the lanes to redo. */
LRF_AVX512 static inline __m512 lrf_fwd34_vec(const float *const *rows, int nr, const float *xc,
                                              int64_t b, __mmask16 m, __m512 va, __m512 vk,
                                              __mmask16 *bad)
{
    __m512 sq, xv;
    if (m == 0xffff) {
        sq = nr == 5 ? lrf_sqsum5(rows[0], rows[1], rows[2], rows[3], rows[4], b)
                     : lrf_sqsum(rows, nr, b);
        xv = _mm512_loadu_ps(xc + b);
    } else {
        __m512 v = _mm512_maskz_loadu_ps(m, rows[0] + b);
        sq = _mm512_mul_ps(v, v);
        for (int k = 1; k < nr; k++) {
            v = _mm512_maskz_loadu_ps(m, rows[k] + b);
            sq = _mm512_fmadd_ps(v, v, sq);
        }
        xv = _mm512_maskz_loadu_ps(m, xc + b);
    }
    const __m512 s = _mm512_fmadd_ps(va, sq, vk);
    const __mmask16 ok = _mm512_mask_cmp_ps_mask(m, s, _mm512_set1_ps(LRF_SMIN), _CMP_GE_OQ) &
                         _mm512_cmp_ps_mask(s, _mm512_set1_ps(LRF_SMAX), _CMP_LE_OQ);
    *bad = m & ~ok;
    return _mm512_mul_ps(xv, lrf_pow34f(s));
}

/* The common forward (beta 0.75, alpha 1, blend beta 0) on plane rows (mode 3): a unit is up
 * to LRF_PBIG positions of one image (a whole 112 x 112 plane is one), and the window's rows
 * are read in place from x: each x row comes from memory once, as one long run (the L2
 * stream prefetcher follows it, and the next row is prefetched into L2 across this row's
 * arithmetic), and stays in L2 for the n output rows that read it (n rows of up to 64 KiB).
 * Output rows go out in 64-byte streaming stores from their first line boundary (the pieces
 * before and after through memop.h's 16-byte streaming stores) when f->nt. The ring rows of
 * mode 1 read 64 runs of 4 KiB per unit, which the prefetchers did not keep ahead of: 0.44 of
 * the bandwidth (n8c64h112w112). The same operations per element as lrf_fwd_row34: the
 * same bits. */
LRF_AVX512 static void lrf_fwd_plane34(const lrf_plan_t *f, const fd_lrn_problem_t *p,
                                       const fd_lrn_args_t *a, int64_t u)
{
    const int win = (int)p->n, lb = (win - 1) / 2, la = win - 1 - lb;
    const int64_t C = f->C, P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    const __m512 vk = _mm512_set1_ps((float)p->k), va = _mm512_set1_ps((float)(p->alpha / p->n));
    const float *x = (const float *)a->x + n * f->s0[1] + sp0;
    float *y = (float *)a->out + n * f->s0[0] + sp0;
    const int64_t xcs = f->s1[1], ycs = f->s1[0];
    const int64_t np = f->S - sp0 < P ? f->S - sp0 : P;
    for (int64_t c = 0; c < C; c++) {
        const float *rows[CUDNN_LRN_MAX_N];
        int nr = 0;
        for (int64_t j = c - lb < 0 ? 0 : c - lb; j <= c + la && j < C; j++)
            rows[nr++] = x + j * xcs;
        const float *xc = x + c * xcs, *nx = c + la + 1 < C ? x + (c + la + 1) * xcs : NULL;
        float *yo = y + c * ycs;
        const int nt = f->nt && ((uintptr_t)yo & 3) == 0;
        int64_t h = nt ? (int64_t)(((64 - ((uintptr_t)yo & 63)) & 63) / 4) : 0;
        h = h < np ? h : np;
        __mmask16 bd;
        float tmp[16];
        if (h > 0) { /* up to the first line boundary of the output row */
            __m512 r = lrf_fwd34_vec(rows, nr, xc, 0, lrf_lanes(h), va, vk, &bd);
            if (bd)
                r = lrf_fix_fwd(r, bd, p, a, x, xcs, 1, y, ycs, 1, C, c, 0);
            _mm512_storeu_ps(tmp, r);
            fd_cpu_stream(yo, tmp, sizeof(float) * (size_t)h);
        }
        int64_t b = h;
        for (; b + 16 <= np; b += 16) {
            if (nx)
                _mm_prefetch((const char *)(nx + b), _MM_HINT_T1);
            __m512 r = lrf_fwd34_vec(rows, nr, xc, b, 0xffff, va, vk, &bd);
            if (bd)
                r = lrf_fix_fwd(r, bd, p, a, x + b, xcs, 1, y + b, ycs, 1, C, c, 0);
            if (nt)
                _mm512_stream_ps(yo + b, r);
            else
                _mm512_storeu_ps(yo + b, r);
        }
        if (b < np) {
            const __mmask16 m = lrf_lanes(np - b);
            if (nx)
                _mm_prefetch((const char *)(nx + b), _MM_HINT_T1);
            __m512 r = lrf_fwd34_vec(rows, nr, xc, b, m, va, vk, &bd);
            if (bd)
                r = lrf_fix_fwd(r, bd, p, a, x + b, xcs, 1, y + b, ycs, 1, C, c, 0);
            if (nt) {
                _mm512_storeu_ps(tmp, r);
                fd_cpu_stream(yo + b, tmp, sizeof(float) * (size_t)(np - b));
            } else {
                _mm512_mask_storeu_ps(yo + b, m, r);
            }
        }
    }
}

/* fwd tensors: 0 = y, 1 = x */
LRF_AVX512 static void lrf_fwd_unit(const lrf_plan_t *f, const fd_lrn_problem_t *p,
                                    const fd_lrn_args_t *a, int64_t u)
{
    const int win = (int)p->n, lb = (win - 1) / 2, la = win - 1 - lb;
    const int64_t C = f->C, P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    const __m512 vk = _mm512_set1_ps((float)p->k), va = _mm512_set1_ps((float)(p->alpha / p->n));
    const float al = (float)a->alpha, be = (float)a->beta;
    const int any_s = p->beta == 0.0, gen = lrf_gen(p->beta); /* s^-0 is 1 whatever s */
    if (f->mode == 1) {
        float xr[LRF_RING]; /* x row j at xr + (j % win) * P */
        float ob[LRF_PMAX]; /* an output row, streamed when f->nt */
        __mmask16 bad[LRF_PMAX / 16];
        const int common = p->beta == 0.75 && al == 1.0f && be == 0.0f;
        const float *x = (const float *)a->x + n * f->s0[1] + sp0;
        float *y = (float *)a->out + n * f->s0[0] + sp0;
        const int64_t xcs = f->s1[1], ycs = f->s1[0];
        const int64_t np = f->S - sp0 < P ? f->S - sp0 : P;
        for (int64_t j = 0; j < la && j < C; j++)
            lrf_ring_load(xr + (j % win) * P, x + j * xcs, np);
        for (int64_t c = 0; c < C; c++) {
            if (c + la < C)
                lrf_ring_load(xr + ((c + la) % win) * P, x + (c + la) * xcs, np);
            const float *rows[CUDNN_LRN_MAX_N];
            const int nr = lrf_ring_rows(xr, P, win, c - lb, c + la, C, rows);
            const float *xc = xr + (c % win) * P;
            float *yo = y + c * ycs;
            /* the next x row, spread over this row's arithmetic */
            const float *nx = c + la + 1 < C ? x + (c + la + 1) * xcs : NULL;
            if (common) {
                float *out = f->nt ? ob : yo;
                if (lrf_fwd_row34(rows, nr, xc, out, np, va, vk, nx, bad))
                    for (int64_t b = 0; b < np; b += 16) {
                        const __mmask16 bm = bad[b / 16];
                        if (bm)
                            fd_cpu_mstore_ps(out + b, bm,
                                             lrf_fix_fwd(fd_cpu_mload_ps(bm, out + b), bm, p, a,
                                                         x + b, xcs, 1, y + b, ycs, 1, C, c, 0));
                    }
                if (f->nt)
                    lrf_stream_row(yo, ob, np);
                continue;
            }
            for (int64_t b = 0; b < np; b += 16) {
                if (nx)
                    _mm_prefetch((const char *)(nx + b), _MM_HINT_T0);
                const __mmask16 m = lrf_lanes(np - b);
                const __m512 s = _mm512_fmadd_ps(va, lrf_sqsum(rows, nr, b), vk);
                const __m512 pv = lrf_powf(s, p->beta);
                __m512 r = lrf_blend(_mm512_mul_ps(_mm512_loadu_ps(xc + b), pv), yo + b, m, al, be);
                const __mmask16 ok = any_s ? m : lrf_sok(m, s, pv, gen);
                if (ok != m)
                    r = lrf_fix_fwd(r, m & ~ok, p, a, x + b, xcs, 1, y + b, ycs, 1, C, c, 0);
                if (f->nt)
                    _mm512_storeu_ps(ob + b, r);
                else
                    fd_cpu_mstore_ps(yo + b, m, r);
            }
            if (f->nt)
                lrf_stream_row(yo, ob, np);
        }
        return;
    }
    __m512i idx[CUDNN_LRN_MAX_N];
    lrf_shift_idx(idx, win, lb);
    const int64_t sp1 = sp0 + P < f->S ? sp0 + P : f->S, nv = (C + 15) / 16;
    if (p->beta == 0.75 && al == 1.0f && be == 0.0f && win == 5) {
        /* the common case: the loop below with its per-vector tests hoisted and lrf_pixsum's
         * five terms written out (the same operations in the same order) */
        const __m512 smin = _mm512_set1_ps(LRF_SMIN), smax = _mm512_set1_ps(LRF_SMAX);
        for (int64_t sp = sp0; sp < sp1; sp++) {
            const float *x = (const float *)a->x + n * f->s0[1] + sp * f->ps[1];
            float *y = (float *)a->out + n * f->s0[0] + sp * f->ps[0];
            __m512 xc = fd_cpu_mload_ps(lrf_lanes(C), x);
            __m512 xn = nv > 1 ? fd_cpu_mload_ps(lrf_lanes(C - 16), x + 16) : _mm512_setzero_ps();
            __m512 qp = _mm512_setzero_ps(), qc = _mm512_mul_ps(xc, xc), qn = _mm512_mul_ps(xn, xn);
            for (int64_t i = 0; i < nv; i++) {
                const __mmask16 m = lrf_lanes(C - 16 * i);
                const __m512 sv = _mm512_fmadd_ps(va, lrf_pixsum5(qp, qc, qn, idx), vk);
                float *yo = y + 16 * i;
                __m512 r = _mm512_mul_ps(xc, lrf_pow34f(sv));
                const __mmask16 ok = _mm512_mask_cmp_ps_mask(m, sv, smin, _CMP_GE_OQ) &
                                     _mm512_cmp_ps_mask(sv, smax, _CMP_LE_OQ);
                if (ok != m)
                    r = lrf_fix_fwd(r, m & ~ok, p, a, x, 1, 0, y, 1, 0, C, 16 * i, 1);
                if (f->nt)
                    lrf_st(yo, m, r, 1);
                else
                    fd_cpu_mstore_ps(yo, m, r);
                xc = xn;
                xn = i + 2 < nv ? fd_cpu_mload_ps(lrf_lanes(C - 16 * (i + 2)), x + 16 * (i + 2))
                                : _mm512_setzero_ps();
                qp = qc, qc = qn, qn = _mm512_mul_ps(xn, xn);
            }
        }
        return;
    }
    for (int64_t sp = sp0; sp < sp1; sp++) {
        const float *x = (const float *)a->x + n * f->s0[1] + sp * f->ps[1];
        float *y = (float *)a->out + n * f->s0[0] + sp * f->ps[0];
        __m512 xc = fd_cpu_mload_ps(lrf_lanes(C), x);
        __m512 xn = nv > 1 ? fd_cpu_mload_ps(lrf_lanes(C - 16), x + 16) : _mm512_setzero_ps();
        __m512 qp = _mm512_setzero_ps(), qc = _mm512_mul_ps(xc, xc), qn = _mm512_mul_ps(xn, xn);
        for (int64_t i = 0; i < nv; i++) {
            const __mmask16 m = lrf_lanes(C - 16 * i);
            const __m512 s = _mm512_fmadd_ps(va, lrf_pixsum(qp, qc, qn, idx, win, lb), vk);
            float *yo = y + 16 * i;
            const __m512 pv = lrf_powf(s, p->beta);
            __m512 r = lrf_blend(_mm512_mul_ps(xc, pv), yo, m, al, be);
            const __mmask16 ok = any_s ? m : lrf_sok(m, s, pv, gen);
            if (ok != m)
                r = lrf_fix_fwd(r, m & ~ok, p, a, x, 1, 0, y, 1, 0, C, 16 * i, 1);
            lrf_st(yo, m, r, f->nt);
            xc = xn;
            xn = i + 2 < nv ? fd_cpu_mload_ps(lrf_lanes(C - 16 * (i + 2)), x + 16 * (i + 2))
                            : _mm512_setzero_ps();
            qp = qc, qc = qn, qn = _mm512_mul_ps(xn, xn);
        }
    }
}

/* One backward output vector from its parts: alpha (dy p - coef x acc) + beta dx; lanes whose
 * value is not finite are recomputed in double (a product past float's range that the ref's
 * double holds; genuine NaN / inf inputs already sent the unit to lrf_slow_bwd). */
LRF_AVX512 static inline __m512 lrf_bwd_out(__m512 gp, __m512 xv, __m512 acc, __m512 vcoef,
                                            float *dxo, __mmask16 m, float al, float be)
{
    return lrf_blend(_mm512_fnmadd_ps(_mm512_mul_ps(vcoef, xv), acc, gp), dxo, m, al, be);
}

/* The terms of one channel row of the common backward (beta 0.75), the general loop's
 * operations without its per-vector tests: go = dy s^-beta, wo = dy y / s, bm = the lanes
 * the ref's double formula must redo. */
LRF_AVX512 static void lrf_bwd_terms34(const float *const *rows, int nr, const float *g,
                                       const float *yv, float *go, float *wo, __mmask16 *bm,
                                       int64_t np, __m512 va, __m512 vk, const float *nx,
                                       const float *ng, const float *ny)
{
    const __m512 smin = _mm512_set1_ps(LRF_SMIN), smax = _mm512_set1_ps(LRF_SMAX);
    const __m512 inf = _mm512_set1_ps(INFINITY);
    for (int64_t b = 0; b < np; b += 16) {
        if (nx)
            _mm_prefetch((const char *)(nx + b), _MM_HINT_T0);
        if (ng) {
            _mm_prefetch((const char *)(ng + b), _MM_HINT_T0);
            _mm_prefetch((const char *)(ny + b), _MM_HINT_T0);
        }
        const __mmask16 m = lrf_lanes(np - b);
        const __m512 sq = nr == 5 ? lrf_sqsum5(rows[0], rows[1], rows[2], rows[3], rows[4], b)
                                  : lrf_sqsum(rows, nr, b);
        const __m512 s = _mm512_fmadd_ps(va, sq, vk);
        const __m512 pv = lrf_pow34f(s);
        const __m512 gv = fd_cpu_mload_ps(m, g + b);
        _mm512_storeu_ps(go + b, _mm512_mul_ps(gv, pv));
        const __m512 wv = _mm512_mul_ps(_mm512_mul_ps(gv, fd_cpu_mload_ps(m, yv + b)), lrf_rcp(s));
        _mm512_storeu_ps(wo + b, wv);
        const __mmask16 ok = _mm512_mask_cmp_ps_mask(m, s, smin, _CMP_GE_OQ) &
                             _mm512_cmp_ps_mask(s, smax, _CMP_LE_OQ) &
                             _mm512_cmp_ps_mask(_mm512_abs_ps(wv), inf, _CMP_LT_OQ);
        bm[b / 16] = m & ~ok;
    }
}

/* The outputs of one channel row of the common backward (alpha 1, blend beta 0): dy s^-beta -
 * coef x sum of the w rows, in the general loop's order; lanes to redo (a flagged term or a
 * non-finite result) go to bad[]; returns 1 when any. */
LRF_AVX512 static int lrf_bwd_out1(const float *const *rows, const __mmask16 *const *bmr, int nr,
                                   const float *gi, const float *xi, __m512 vcoef, float *out,
                                   int64_t np, __mmask16 *bad)
{
    const __m512 inf = _mm512_set1_ps(INFINITY);
    __mmask16 any = 0;
    for (int64_t b = 0; b < np; b += 16) {
        const __mmask16 m = lrf_lanes(np - b);
        __m512 acc = _mm512_loadu_ps(rows[0] + b);
        __mmask16 bd = bmr[0][b / 16];
        for (int k = 1; k < nr; k++) {
            acc = _mm512_add_ps(acc, _mm512_loadu_ps(rows[k] + b));
            bd |= bmr[k][b / 16];
        }
        const __m512 r = _mm512_fnmadd_ps(_mm512_mul_ps(vcoef, _mm512_loadu_ps(xi + b)), acc,
                                          _mm512_loadu_ps(gi + b));
        bd |= m & ~_mm512_cmp_ps_mask(_mm512_abs_ps(r), inf, _CMP_LT_OQ);
        bad[b / 16] = bd;
        any |= bd;
        fd_cpu_mstore_ps(out + b, m, r);
    }
    return any != 0;
}

/* Plane rows of the backward: t[] = dx, x, y, dy at channel 0 of image n, position sp0, cs[]
 * their channel strides; returns dx's pointer. */
static float *lrf_bwd_bases(const lrf_plan_t *f, const fd_lrn_args_t *a, int64_t n, int64_t sp0,
                            const float **t, int64_t *cs)
{
    const void *const base[4] = {a->out, a->x, a->y, a->dy};
    for (int i = 0; i < 4; i++) {
        cs[i] = f->s1[i];
        t[i] = (const float *)base[i] + n * f->s0[i] + sp0;
    }
    return (float *)a->out + n * f->s0[0] + sp0;
}

/* lrf_bwd_plane34's step for the full vectors b0, b0 + 16, .. < b1 in the steady state (window
 * 5 for both the terms of channel c and the output of channel c - 2, no lanes to redo in the
 * four older w rows): the same operations, with this step's w row added from its register. */
typedef struct {
    const float *x[5], *g, *w[4], *gi, *px, *pg;
    float *wo, *go, *o;
} lrf_bstep_t;

/* lrf_bwd_steady5's vectors from b on, up to the first one whose lanes need lrf_fix_bwd or a
 * store other than a plain one (!nt) or a line-aligned streaming one (nt): returns that
 * vector's b (its result in *rv, the lanes to redo in *bdv; b1 or past when none). No calls
 * in the loop (they made the compiler keep the vectors on the stack). */
LRF_AVX512 __attribute__((noinline)) static int64_t
lrf_bwd_run5(const lrf_bstep_t *q, int64_t b, int64_t b1, __mmask16 *bmv, unsigned *rbp, int nt,
             const float *cst, __m512 *rv, __mmask16 *bdv)
{
    const __m512 va = _mm512_set1_ps(cst[0]), vk = _mm512_set1_ps(cst[1]);
    const __m512 vcoef = _mm512_set1_ps(cst[2]);
    const __m512 smin = _mm512_set1_ps(LRF_SMIN), smax = _mm512_set1_ps(LRF_SMAX);
    /* the rows in locals (the stores below may alias *q as far as the compiler knows); x row
     * c - 2 is also the output's x row, x row c gives y = x s^-beta */
    const float *const x0 = q->x[0], *const x1 = q->x[1], *const x2 = q->x[2],
                       *const x3 = q->x[3], *const x4 = q->x[4];
    const float *const g = q->g, *const gi = q->gi;
    const float *const w0 = q->w[0], *const w1 = q->w[1], *const w2 = q->w[2], *const w3 = q->w[3];
    /* prefetches of the next rows; a missing one repeats a row of this step (no branch) */
    const float *const px = q->px ? q->px : x4, *const pg = q->pg ? q->pg : g;
    float *const wo = q->wo, *const go = q->go, *const o = q->o;
    unsigned rb = *rbp;
    for (; b + 16 <= b1; b += 16, bmv++) {
        _mm_prefetch((const char *)(px + b), _MM_HINT_T0);
        _mm_prefetch((const char *)(pg + b), _MM_HINT_T0);
        const __m512 xv0 = _mm512_loadu_ps(x0 + b);
        __m512 sq = _mm512_mul_ps(xv0, xv0);
        sq = _mm512_fmadd_ps(_mm512_loadu_ps(x1 + b), _mm512_loadu_ps(x1 + b), sq);
        const __m512 xv2 = _mm512_loadu_ps(x2 + b);
        sq = _mm512_fmadd_ps(xv2, xv2, sq);
        sq = _mm512_fmadd_ps(_mm512_loadu_ps(x3 + b), _mm512_loadu_ps(x3 + b), sq);
        sq = _mm512_fmadd_ps(_mm512_loadu_ps(x4 + b), _mm512_loadu_ps(x4 + b), sq);
        const __m512 gv = _mm512_loadu_ps(g + b);
        const __m512 sv = _mm512_fmadd_ps(va, sq, vk);
        const __m512 pv = lrf_pow34f(sv);
        _mm512_storeu_ps(go + b, _mm512_mul_ps(gv, pv));
        const __m512 wv = _mm512_mul_ps(_mm512_mul_ps(gv, _mm512_mul_ps(xv2, pv)), lrf_rcp(sv));
        _mm512_storeu_ps(wo + b, wv);
        /* lanes to redo: a scale outside [LRF_SMIN, LRF_SMAX] or NaN, a non-finite term
         * (fpclass 0x99: NaN, +inf, -inf) */
        const __mmask16 ok = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(sv, smax, _CMP_LE_OQ), sv,
                                                     smin, _CMP_GE_OQ) &
                             (__mmask16)~_mm512_fpclass_ps_mask(wv, 0x99);
        const __mmask16 tb = (__mmask16)~ok;
        *bmv = tb;
        rb |= tb;
        __m512 acc = _mm512_loadu_ps(w0 + b);
        acc = _mm512_add_ps(acc, _mm512_loadu_ps(w1 + b));
        acc = _mm512_add_ps(acc, _mm512_loadu_ps(w2 + b));
        acc = _mm512_add_ps(acc, _mm512_loadu_ps(w3 + b));
        acc = _mm512_add_ps(acc, wv);
        const __m512 r = _mm512_fnmadd_ps(_mm512_mul_ps(vcoef, xv0), acc, _mm512_loadu_ps(gi + b));
        const __mmask16 bd = tb | _mm512_fpclass_ps_mask(r, 0x99);
        if (__builtin_expect(bd != 0 || (nt && ((uintptr_t)(o + b) & 63) != 0), 0)) {
            *rv = r, *bdv = bd;
            break;
        }
        if (nt)
            _mm512_stream_ps(o + b, r);
        else
            _mm512_storeu_ps(o + b, r);
    }
    *rbp = rb;
    return b;
}

LRF_AVX512 static inline void lrf_bwd_steady5(const lrf_bstep_t *q, int64_t b0, int64_t b1,
                                              __mmask16 *bmv, int *rowbad, int nt,
                                              const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                                              const float *const *t, const int64_t *cs,
                                              int64_t C, int64_t i)
{
    const float cst[3] = {(float)(p->alpha / p->n), (float)p->k,
                          (float)(2.0 * p->beta * p->alpha / p->n)};
    unsigned rb = 0;
    for (int64_t b = b0; b + 16 <= b1; b += 16) {
        __m512 r;
        __mmask16 bd;
        b = lrf_bwd_run5(q, b, b1, bmv + (b - b0) / 16, &rb, nt, cst, &r, &bd);
        if (b + 16 > b1)
            break;
        if (bd)
            r = lrf_fix_bwd(r, bd, p, a, t, cs, C, i, b);
        if (nt && ((uintptr_t)(q->o + b) & 63) == 0) {
            _mm512_stream_ps(q->o + b, r);
        } else if (nt) {
            float tmp[16];
            _mm512_storeu_ps(tmp, r);
            fd_cpu_stream(q->o + b, tmp, sizeof tmp);
        } else {
            _mm512_storeu_ps(q->o + b, r);
        }
    }
    *rowbad |= rb != 0;
}

/* The common backward (beta 0.75, alpha 1, blend beta 0) on plane rows (mode 4): a unit is up
 * to f->pw positions of one image (LRF_BW floats of rings: the w = dy y / s rows of the window
 * and lb + 1 rows of dy s^-beta), x read in place (its window rows stay in L1 / L2), and one
 * pass per channel step computes the terms of channel c and the output of channel c - lb
 * together, from registers to the output (streamed from its first line boundary when f->nt).
 * The lanes to redo are tracked per ring row, their vector masks read only where a row has
 * any. Per element the operations of lrf_bwd_terms34 / lrf_bwd_out1 in their order: the
 * same bits. Against mode 1's rows: no ring copy of x, no output buffer pass, one loop per
 * step (fewer instructions: the backward was compute-bound there). */
LRF_AVX512 static void lrf_bwd_plane34(const lrf_plan_t *f, const fd_lrn_problem_t *p,
                                       const fd_lrn_args_t *a, int64_t u)
{
    const int win = (int)p->n, lb = (win - 1) / 2, la = win - 1 - lb;
    const int64_t C = f->C, P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    const __m512 vk = _mm512_set1_ps((float)p->k), va = _mm512_set1_ps((float)(p->alpha / p->n));
    const __m512 vcoef = _mm512_set1_ps((float)(2.0 * p->beta * p->alpha / p->n));
    const __m512 smin = _mm512_set1_ps(LRF_SMIN), smax = _mm512_set1_ps(LRF_SMAX);
    const __m512 inf = _mm512_set1_ps(INFINITY);
    const int64_t RP = P + 16; /* ring row stride: full-vector stores past np */
    float ring[LRF_BW];
    __mmask16 bm[CUDNN_LRN_MAX_N][LRF_BWMAX / 16 + 2];
    int rowbad[CUDNN_LRN_MAX_N];
    float *wr = ring, *gr = ring + win * RP;
    const float *t[4];
    int64_t cs[4];
    float *dx = lrf_bwd_bases(f, a, n, sp0, t, cs);
    const int64_t np = f->S - sp0 < P ? f->S - sp0 : P;
    /* vectors: [0, h) when h > 0 (dx's first line boundary, channel 0), then 16 at a time,
     * the last one partial: one grid for every row of the unit (the ring masks are per
     * vector); rows of another alignment stream through memop.h's 16-byte stores */
    int64_t h = f->nt && ((uintptr_t)dx & 3) == 0 ? (int64_t)(((64 - ((uintptr_t)dx & 63)) & 63) / 4) : 0;
    h = h < np ? h : np;
    for (int64_t c = 0; c < C + lb; c++) {
        const int term = c < C;
        const int64_t i = c - lb;
        /* the terms of channel c */
        const float *xw[CUDNN_LRN_MAX_N] = {0};
        int nx = 0;
        float *wo = wr + (c % win) * RP, *go = gr + (c % (lb + 1)) * RP;
        __mmask16 *bmc = bm[c % win];
        /* y is not read: y = x s^-beta again from this step's x row c and power (file header) */
        const float *g = t[3] + c * cs[3], *xc = t[1] + c * cs[1];
        const float *px = NULL, *pg = NULL; /* the next rows, prefetched */
        if (term) {
            for (int64_t j = c - lb < 0 ? 0 : c - lb; j <= c + la && j < C; j++)
                xw[nx++] = t[1] + j * cs[1];
            rowbad[c % win] = 0;
            if (c + la + 1 < C)
                px = t[1] + (c + la + 1) * cs[1];
            if (c + 1 < C)
                pg = t[3] + (c + 1) * cs[3];
        }
        /* the output of channel i = c - lb */
        const float *wrows[CUDNN_LRN_MAX_N];
        const __mmask16 *bmr[CUDNN_LRN_MAX_N];
        int nw = 0, oldbad = 0;
        const float *xi = NULL, *gi = NULL;
        float *o = NULL;
        if (i >= 0) {
            for (int64_t j = i - la < 0 ? 0 : i - la; j <= i + lb && j < C; j++) {
                wrows[nw] = wr + (j % win) * RP;
                bmr[nw++] = bm[j % win];
                if (j != c)
                    oldbad |= rowbad[j % win];
            }
            xi = t[1] + i * cs[1], gi = gr + (i % (lb + 1)) * RP;
            o = dx + i * cs[0];
        }
        const int nt = f->nt && ((uintptr_t)o & 3) == 0;
        int v = 0;
        /* window 5 only: lrf_bwd_run5 takes x row c from xw[2] (a window of 7 over C = 6 has
         * nx = nw = 5 at c = 4 with row c at xw[3]) */
        const int steady = win == 5 && term && i >= 0 && nx == 5 && nw == 5 && !oldbad;
        for (int64_t b = 0; b < np; v++) {
            const int64_t len = b == 0 && h > 0 ? h : (np - b < 16 ? np - b : 16);
            if (steady && len == 16) { /* every full vector of the row at once */
                const int64_t nv = (np - b) / 16;
                lrf_bstep_t q = {{xw[0], xw[1], xw[2], xw[3], xw[4]}, g,
                                 {wrows[0], wrows[1], wrows[2], wrows[3]}, gi, px, pg, wo, go, o};
                lrf_bwd_steady5(&q, b, b + 16 * nv, bmc + v, &rowbad[c % win], nt, p, a, t,
                                cs, C, i);
                b += 16 * nv;
                v += (int)nv - 1;
                continue;
            }
            const __mmask16 m = lrf_lanes(len);
            const int full = len == 16;
            __mmask16 tb = 0;
            if (term) {
                if (px)
                    _mm_prefetch((const char *)(px + b), _MM_HINT_T0);
                if (pg)
                    _mm_prefetch((const char *)(pg + b), _MM_HINT_T0);
                __m512 sq, gv, xv;
                if (full) {
                    sq = nx == 5 ? lrf_sqsum5(xw[0], xw[1], xw[2], xw[3], xw[4], b)
                                 : lrf_sqsum(xw, nx, b);
                    gv = _mm512_loadu_ps(g + b), xv = _mm512_loadu_ps(xc + b);
                } else {
                    xv = _mm512_maskz_loadu_ps(m, xw[0] + b);
                    sq = _mm512_mul_ps(xv, xv);
                    for (int k = 1; k < nx; k++) {
                        xv = _mm512_maskz_loadu_ps(m, xw[k] + b);
                        sq = _mm512_fmadd_ps(xv, xv, sq);
                    }
                    gv = _mm512_maskz_loadu_ps(m, g + b), xv = _mm512_maskz_loadu_ps(m, xc + b);
                }
                const __m512 sv = _mm512_fmadd_ps(va, sq, vk), pv = lrf_pow34f(sv);
                _mm512_storeu_ps(go + b, _mm512_mul_ps(gv, pv));
                const __m512 wv =
                    _mm512_mul_ps(_mm512_mul_ps(gv, _mm512_mul_ps(xv, pv)), lrf_rcp(sv));
                _mm512_storeu_ps(wo + b, wv);
                const __mmask16 ok = _mm512_mask_cmp_ps_mask(m, sv, smin, _CMP_GE_OQ) &
                                     _mm512_cmp_ps_mask(sv, smax, _CMP_LE_OQ) &
                                     _mm512_cmp_ps_mask(_mm512_abs_ps(wv), inf, _CMP_LT_OQ);
                tb = m & ~ok;
                bmc[v] = tb;
                rowbad[c % win] |= tb != 0;
            }
            if (i >= 0) {
                __m512 acc = _mm512_loadu_ps(wrows[0] + b);
                for (int k = 1; k < nw; k++)
                    acc = _mm512_add_ps(acc, _mm512_loadu_ps(wrows[k] + b));
                const __m512 xv = full ? _mm512_loadu_ps(xi + b) : _mm512_maskz_loadu_ps(m, xi + b);
                __m512 r = _mm512_fnmadd_ps(_mm512_mul_ps(vcoef, xv), acc, _mm512_loadu_ps(gi + b));
                __mmask16 bd = m & ~_mm512_cmp_ps_mask(_mm512_abs_ps(r), inf, _CMP_LT_OQ);
                if (oldbad)
                    for (int k = 0; k < nw; k++)
                        bd |= bmr[k][v];
                else if (term && i + lb == c)
                    bd |= tb; /* the one row that may have lanes to redo: this step's */
                if (bd)
                    r = lrf_fix_bwd(r, bd, p, a, t, cs, C, i, b);
                if (full && nt && ((uintptr_t)(o + b) & 63) == 0) {
                    _mm512_stream_ps(o + b, r);
                } else if (nt) {
                    float tmp[16];
                    _mm512_storeu_ps(tmp, r);
                    fd_cpu_stream(o + b, tmp, sizeof(float) * (size_t)len);
                } else {
                    fd_cpu_mstore_ps(o + b, m, r);
                }
            }
            b += len;
        }
    }
}

/* bwd tensors: 0 = dx, 1 = x, 2 = y, 3 = dy.
 * dx_i = dy_i s_i^-beta - 2 beta alpha / n * x_i * sum_{c = i - la .. i + lb} dy_c y_c / s_c */
/* Pixel sp of image n in the backward's tensors: t[] = dx, x, y, dy there (the t[] order of
 * lrf_slow_bwd); returns dx's. */
static float *lrf_pix_bases(const lrf_plan_t *f, const fd_lrn_args_t *a, int64_t n, int64_t sp,
                            const float **t)
{
    const void *base[4] = {a->out, a->x, a->y, a->dy};
    for (int i = 0; i < 4; i++)
        t[i] = (const float *)base[i] + n * f->s0[i] + sp * f->ps[i];
    return (float *)a->out + n * f->s0[0] + sp * f->ps[0];
}

/* The common backward (beta 0.75, alpha 1, blend beta 0, window 5) of pixel rows of up to 64
 * channels (four vectors), pixels [sp0, sp1) of image n: lrf_bwd_unit's pixel loops with the
 * pixel's vectors, powers and terms kept in registers instead of its stack buffers (there the
 * window index vectors and pointers were reloaded from a large frame: the line was bound by its
 * arithmetic, 4.3 ms for n8c64h112w112 on one thread), and y not read: y' = x s^-beta from the
 * power this loop already has (the window-5 pixel forward's own operations, so its bits: the
 * product decision of mode 4, lrn_cpu.c's header). Lanes to redo as there: a pixel whose scale,
 * power or term is out of range takes the ref's double formula (which reads y) whole, a
 * non-finite output lane alone. */
LRF_AVX512 static void lrf_bwd_pix5(const lrf_plan_t *f, const fd_lrn_problem_t *p,
                                    const fd_lrn_args_t *a, int64_t n, int64_t sp0, int64_t sp1)
{
    const int64_t C = f->C, nv = (C + 15) / 16;
    const __m512 vk = _mm512_set1_ps((float)p->k), va = _mm512_set1_ps((float)(p->alpha / p->n));
    const __m512 vcoef = _mm512_set1_ps((float)(2.0 * p->beta * p->alpha / p->n));
    const __m512 inf = _mm512_set1_ps(INFINITY), zero = _mm512_setzero_ps();
    const int64_t one[4] = {1, 1, 1, 1};
    __m512i idx[CUDNN_LRN_MAX_N];
    lrf_shift_idx(idx, 5, 2); /* window 5: the adjoint window's shifts are the same */
    for (int64_t sp = sp0; sp < sp1; sp++) {
        const float *t[4];
        float *dx = lrf_pix_bases(f, a, n, sp, t);
        __m512 xv[4], g[4], pv[4], q[6], w[6];
        __mmask16 m[4];
        q[0] = w[0] = zero;
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            m[i] = i < nv ? lrf_lanes(C - 16 * i) : 0;
            xv[i] = i < nv ? fd_cpu_mload_ps(m[i], t[1] + 16 * i) : zero;
            g[i] = i < nv ? fd_cpu_mload_ps(m[i], t[3] + 16 * i) : zero;
            q[i + 1] = _mm512_mul_ps(xv[i], xv[i]);
            w[i + 1] = pv[i] = zero;
        }
        q[5] = w[5] = zero;
        __mmask16 bad = 0;
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            if (i >= nv)
                break;
            const __m512 s = _mm512_fmadd_ps(va, lrf_pixsum5(q[i], q[i + 1], q[i + 2], idx), vk);
            pv[i] = lrf_pow34f(s);
            /* lanes past C: 0 * 0 / s = +0, the zero padding the windows need */
            const __m512 wv =
                _mm512_mul_ps(_mm512_mul_ps(g[i], _mm512_mul_ps(xv[i], pv[i])), lrf_rcp(s));
            w[i + 1] = wv;
            bad |= m[i] & ~(lrf_sok(m[i], s, pv[i], 0) &
                            _mm512_cmp_ps_mask(_mm512_abs_ps(wv), inf, _CMP_LT_OQ));
        }
        if (bad) {
            float v[64];
            for (int64_t c = 0; c < C; c++)
                v[c] = lrf_slow_bwd(p, a, t, one, C, c);
            memcpy(dx, v, (size_t)C * sizeof(float));
            continue;
        }
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            if (i >= nv)
                break;
            const __m512 acc = lrf_pixsum5(w[i], w[i + 1], w[i + 2], idx);
            __m512 r =
                _mm512_fnmadd_ps(_mm512_mul_ps(vcoef, xv[i]), acc, _mm512_mul_ps(g[i], pv[i]));
            const __mmask16 fin = _mm512_cmp_ps_mask(_mm512_abs_ps(r), inf, _CMP_LT_OQ);
            if ((fin & m[i]) != m[i]) {
                float v[16];
                _mm512_storeu_ps(v, r);
                for (int l = 0; l < 16; l++)
                    if ((m[i] & ~fin) >> l & 1)
                        v[l] = lrf_slow_bwd(p, a, t, one, C, 16 * i + l);
                r = _mm512_loadu_ps(v);
            }
            lrf_st(dx + 16 * i, m[i], r, f->nt);
        }
    }
}

LRF_AVX512 static void lrf_bwd_unit(const lrf_plan_t *f, const fd_lrn_problem_t *p,
                                    const fd_lrn_args_t *a, int64_t u)
{
    const int win = (int)p->n, lb = (win - 1) / 2, la = win - 1 - lb;
    const int64_t C = f->C, P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    const __m512 vk = _mm512_set1_ps((float)p->k), va = _mm512_set1_ps((float)(p->alpha / p->n));
    const __m512 vcoef = _mm512_set1_ps((float)(2.0 * p->beta * p->alpha / p->n));
    const float al = (float)a->alpha, be = (float)a->beta;
    const __m512 inf = _mm512_set1_ps(INFINITY);
    const int gen = lrf_gen(p->beta);

    if (f->mode == 1) {
        /* rings: x rows (win), w = dy y / s rows (win), dy s^-beta rows (lb + 1), and per w row
         * the lanes whose scale or term needs the ref's double path */
        float ring[LRF_RING], ob[LRF_PMAX];
        __mmask16 bm[CUDNN_LRN_MAX_N][LRF_PMAX / 16], obad[LRF_PMAX / 16];
        const int common = p->beta == 0.75 && al == 1.0f && be == 0.0f;
        float *xr = ring, *wr = ring + win * P, *gr = ring + 2 * win * P;
        const float *t[4];
        int64_t cs[4];
        float *dx = lrf_bwd_bases(f, a, n, sp0, t, cs);
        const int64_t np = f->S - sp0 < P ? f->S - sp0 : P;
        for (int64_t j = 0; j < la && j < C; j++)
            lrf_ring_load(xr + (j % win) * P, t[1] + j * cs[1], np);
        /* step c: the terms of channel c (c < C), then the output of channel c - lb, whose
         * adjoint window c - lb - la .. c ends at c */
        for (int64_t c = 0; c < C + lb; c++) {
            if (c < C) {
                if (c + la < C)
                    lrf_ring_load(xr + ((c + la) % win) * P, t[1] + (c + la) * cs[1], np);
                /* the next rows of x, dy and y, spread over this row's arithmetic */
                const float *nx = c + la + 1 < C ? t[1] + (c + la + 1) * cs[1] : NULL;
                const float *ng = c + 1 < C ? t[3] + (c + 1) * cs[3] : NULL;
                const float *ny = c + 1 < C ? t[2] + (c + 1) * cs[2] : NULL;
                const float *rows[CUDNN_LRN_MAX_N];
                const int nr = lrf_ring_rows(xr, P, win, c - lb, c + la, C, rows);
                float *wo = wr + (c % win) * P, *go = gr + (c % (lb + 1)) * P;
                const float *g = t[3] + c * cs[3], *yv = t[2] + c * cs[2];
                if (common)
                    lrf_bwd_terms34(rows, nr, g, yv, go, wo, bm[c % win], np, va, vk, nx, ng, ny);
                for (int64_t b = 0; !common && b < np; b += 16) {
                    if (nx)
                        _mm_prefetch((const char *)(nx + b), _MM_HINT_T0);
                    if (ng) {
                        _mm_prefetch((const char *)(ng + b), _MM_HINT_T0);
                        _mm_prefetch((const char *)(ny + b), _MM_HINT_T0);
                    }
                    const __mmask16 m = lrf_lanes(np - b);
                    const __m512 s = _mm512_fmadd_ps(va, lrf_sqsum(rows, nr, b), vk);
                    const __m512 pv = lrf_powf(s, p->beta);
                    const __m512 gv = fd_cpu_mload_ps(m, g + b);
                    _mm512_storeu_ps(go + b, _mm512_mul_ps(gv, pv));
                    const __m512 wv =
                        _mm512_mul_ps(_mm512_mul_ps(gv, fd_cpu_mload_ps(m, yv + b)), lrf_rcp(s));
                    _mm512_storeu_ps(wo + b, wv);
                    bm[c % win][b / 16] =
                        m & ~(lrf_sok(m, s, pv, gen) &
                              _mm512_cmp_ps_mask(_mm512_abs_ps(wv), inf, _CMP_LT_OQ));
                }
            }
            const int64_t i = c - lb;
            if (i < 0)
                continue;
            const int64_t j0 = i - la < 0 ? 0 : i - la, j1 = i + lb < C ? i + lb : C - 1;
            const float *rows[CUDNN_LRN_MAX_N];
            const int nr = lrf_ring_rows(wr, P, win, j0, j1, C, rows);
            const float *xi = xr + (i % win) * P, *gi = gr + (i % (lb + 1)) * P;
            const __mmask16 *bmr[CUDNN_LRN_MAX_N];
            for (int k = 0; k < nr; k++)
                bmr[k] = bm[(j0 + k) % win];
            float *o = dx + i * cs[0];
            if (common) {
                float *out = f->nt ? ob : o;
                if (lrf_bwd_out1(rows, bmr, nr, gi, xi, vcoef, out, np, obad))
                    for (int64_t b = 0; b < np; b += 16)
                        for (int l = 0; l < 16; l++)
                            if (obad[b / 16] >> l & 1) {
                                const float *tl[4] = {t[0] + b + l, t[1] + b + l, t[2] + b + l,
                                                      t[3] + b + l};
                                out[b + l] = lrf_slow_bwd(p, a, tl, cs, C, i);
                            }
                if (f->nt)
                    lrf_stream_row(o, ob, np);
                continue;
            }
            for (int64_t b = 0; b < np; b += 16) {
                const __mmask16 m = lrf_lanes(np - b);
                __m512 acc = _mm512_loadu_ps(rows[0] + b);
                __mmask16 bad = 0;
                for (int k = 1; k < nr; k++)
                    acc = _mm512_add_ps(acc, _mm512_loadu_ps(rows[k] + b));
                for (int k = 0; k < nr; k++)
                    bad |= bmr[k][b / 16];
                __m512 r = lrf_bwd_out(_mm512_loadu_ps(gi + b), _mm512_loadu_ps(xi + b), acc, vcoef,
                                       o + b, m, al, be);
                bad |= m & ~_mm512_cmp_ps_mask(_mm512_abs_ps(r), inf, _CMP_LT_OQ);
                if (bad)
                    r = lrf_fix_bwd(r, bad, p, a, t, cs, C, i, b);
                if (f->nt)
                    _mm512_storeu_ps(ob + b, r);
                else
                    fd_cpu_mstore_ps(o + b, m, r);
            }
            if (f->nt)
                lrf_stream_row(o, ob, np);
        }
        return;
    }
    const int64_t sp1 = sp0 + P < f->S ? sp0 + P : f->S, nv = (C + 15) / 16;
    if (p->beta == 0.75 && al == 1.0f && be == 0.0f && win == 5 && nv <= 4) {
        lrf_bwd_pix5(f, p, a, n, sp0, sp1);
        return;
    }
    __m512i idx[CUDNN_LRN_MAX_N], adj[CUDNN_LRN_MAX_N];
    lrf_shift_idx(idx, win, lb);
    lrf_shift_idx(adj, win, la);
    const int64_t one[4] = {1, 1, 1, 1};
    float w[LRF_BUF], pwb[LRF_BUF];
    /* the common case (beta 0.75, alpha 1, blend beta 0, win 5): the same operations with the
     * window sums written out and the exponent's and blend's tests skipped */
    const int c5 = p->beta == 0.75 && al == 1.0f && be == 0.0f && win == 5;
    for (int64_t sp = sp0; sp < sp1; sp++) {
        const float *t[4];
        float *dx = lrf_pix_bases(f, a, n, sp, t);
        __m512 xn = nv > 1 ? fd_cpu_mload_ps(lrf_lanes(C - 16), t[1] + 16) : _mm512_setzero_ps();
        __m512 xc = fd_cpu_mload_ps(lrf_lanes(C), t[1]);
        __m512 qp = _mm512_setzero_ps(), qc = _mm512_mul_ps(xc, xc), qn = _mm512_mul_ps(xn, xn);
        __mmask16 bad = 0;
        _mm512_storeu_ps(w, _mm512_setzero_ps());
        for (int64_t i = 0; i < nv; i++) {
            const __mmask16 m = lrf_lanes(C - 16 * i);
            const __m512 s = _mm512_fmadd_ps(
                va, c5 ? lrf_pixsum5(qp, qc, qn, idx) : lrf_pixsum(qp, qc, qn, idx, win, lb), vk);
            const __m512 pv = c5 ? lrf_pow34f(s) : lrf_powf(s, p->beta);
            _mm512_storeu_ps(pwb + 16 * i, pv);
            const __m512 g = fd_cpu_mload_ps(m, t[3] + 16 * i);
            const __m512 yv = fd_cpu_mload_ps(m, t[2] + 16 * i);
            /* lanes past C: 0 * 0 / s = +0, the zero padding the windows need */
            const __m512 wv = _mm512_mul_ps(_mm512_mul_ps(g, yv), lrf_rcp(s));
            _mm512_storeu_ps(w + 16 * (i + 1), wv);
            bad |= m & ~(lrf_sok(m, s, pv, gen) &
                         _mm512_cmp_ps_mask(_mm512_abs_ps(wv), inf, _CMP_LT_OQ));
            xn = i + 2 < nv ? fd_cpu_mload_ps(lrf_lanes(C - 16 * (i + 2)), t[1] + 16 * (i + 2))
                            : _mm512_setzero_ps();
            qp = qc, qc = qn, qn = _mm512_mul_ps(xn, xn);
        }
        if (bad) {
            for (int64_t c = 0; c < C; c++)
                pwb[c] = lrf_slow_bwd(p, a, t, one, C, c); /* pwb: free now */
            memcpy(dx, pwb, (size_t)C * sizeof(float));
            continue;
        }
        _mm512_storeu_ps(w + 16 * (nv + 1), _mm512_setzero_ps());
        for (int64_t i = 0; i < nv; i++) {
            const __mmask16 m = lrf_lanes(C - 16 * i);
            const __m512 w0 = _mm512_loadu_ps(w + 16 * i), w1 = _mm512_loadu_ps(w + 16 * (i + 1));
            const __m512 w2 = _mm512_loadu_ps(w + 16 * (i + 2));
            const __m512 acc =
                c5 ? lrf_pixsum5(w0, w1, w2, adj) : lrf_pixsum(w0, w1, w2, adj, win, la);
            const __m512 g = fd_cpu_mload_ps(m, t[3] + 16 * i);
            const __m512 xv = fd_cpu_mload_ps(m, t[1] + 16 * i);
            float *o = dx + 16 * i;
            __m512 r = lrf_bwd_out(_mm512_mul_ps(g, _mm512_loadu_ps(pwb + 16 * i)), xv, acc, vcoef, o,
                                   m, al, be);
            const __mmask16 fin = _mm512_cmp_ps_mask(_mm512_abs_ps(r), inf, _CMP_LT_OQ);
            if ((fin & m) != m) {
                float v[16];
                _mm512_storeu_ps(v, r);
                for (int l = 0; l < 16; l++)
                    if ((m & ~fin) >> l & 1)
                        v[l] = lrf_slow_bwd(p, a, t, one, C, 16 * i + l);
                r = _mm512_loadu_ps(v);
            }
            lrf_st(o, m, r, f->nt);
        }
    }
}

/* ---- the AVX2 rows (FLOAT, packed spatial dims, the common case): float arithmetic ---------- */

/* The common case (beta 0.75, alpha 1, blend beta 0; any window) where the CPU has AVX2 and FMA
 * but not the AVX-512 set (or FREEDNN_CPU_ISA=avx2): the AVX-512 rows' decision and bound
 * (file header) on 8 float lanes, the same formulas (float window sums in channel order,
 * s = k + alpha / n * sum by one fma, y = x s^-beta, dy y / s by a reciprocal, and, backward,
 * y = x s^-beta from the power instead of reading y), from AVX2's 12-bit rsqrtps: s^-0.75 by
 * lra_pow34 (a second-order correction), 1 / s by lra_rcp (from the same r^2). NCHW-like plane
 * rows read x in place (mode 3's forward, mode 4's fused backward with rings of w = dy y / s
 * and dy s^-beta rows); NHWC-like pixel rows take the window's neighbours by in-lane byte
 * shifts of three vectors. Lanes to redo (scale outside [LRF_SMIN, LRF_SMAX] or NaN, a
 * non-finite term or result) take the ref's double formula, as the AVX-512 rows do. Other
 * exponents, blends and dtypes take the general rows. The rsqrtps estimate is not specified
 * bit for bit (AMD and Intel differ): the same bits for any thread count on one machine; the
 * corrections' error analysis holds for any estimate within the documented 1.5 2^-12
 * (measured on Zen 3 only). */
#define LRA __attribute__((target("avx2,fma")))
#define LRA_IN __attribute__((target("avx2,fma"), always_inline)) static inline

static const int32_t lra_mtab[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

/* The first n lanes (n clipped to [0, 8]) as a maskload / maskstore mask. */
LRA_IN __m256i lra_mask(int64_t n)
{
    n = n < 0 ? 0 : n > 8 ? 8 : n;
    return _mm256_loadu_si256((const __m256i *)(const void *)(lra_mtab + 8 - n));
}

/* n >= 8: a plain load; else the first n lanes, the others zero. */
LRA_IN __m256 lra_load(const float *p, int64_t n)
{
    return n >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lra_mask(n));
}

/* A full vector to p: streamed when ntr (p 32-byte aligned). */
LRA_IN void lra_st8(float *p, __m256 v, int ntr)
{
    if (ntr)
        _mm256_stream_ps(p, v);
    else
        _mm256_storeu_ps(p, v);
}

/* The first n lanes of v to p (n >= 8: all, streamed when nt and p is 32-byte aligned). */
LRA_IN void lra_store(float *p, int64_t n, __m256 v, int nt)
{
    if (n < 8)
        _mm256_maskstore_ps(p, lra_mask(n), v);
    else
        lra_st8(p, v, nt && ((uintptr_t)p & 31) == 0);
}

/* Bits of the lanes (of the first n) that are not ok. */
LRA_IN unsigned lra_notok(__m256 ok, int64_t n)
{
    const unsigned all = n >= 8 ? 0xffu : (1u << (n < 0 ? 0 : n)) - 1u;
    return all & ~(unsigned)_mm256_movemask_ps(ok);
}

/* Lanes with s in [LRF_SMIN, LRF_SMAX] (NaN is not). */
LRA_IN __m256 lra_sok(__m256 s)
{
    return _mm256_and_ps(_mm256_cmp_ps(s, _mm256_set1_ps(LRF_SMIN), _CMP_GE_OQ),
                         _mm256_cmp_ps(s, _mm256_set1_ps(LRF_SMAX), _CMP_LE_OQ));
}

/* Lanes whose value is finite. */
LRA_IN __m256 lra_fin(__m256 v)
{
    const __m256 abs = _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
    return _mm256_cmp_ps(abs, _mm256_set1_ps(INFINITY), _CMP_LT_OQ);
}

/* s^-0.75 for s in [LRF_SMIN, LRF_SMAX], and in *rr the square of r = rsqrt(s) for lra_rcp:
 * q0 = r^2 rsqrt(r) (rsqrtps: relative error below 1.5 2^-12, so q0's below 2.5 1.5 2^-12),
 * then q = q0 (1 - e)^(-1/4) with e = 1 - q0^4 s^3 (|e| < 2^-8.4) to second order:
 * q0 + q0 e (1/4 + 5/32 e), truncation 15/128 e^3 < 2^-28; e as 1 - m^3 q0, m = q0 s (~ s^0.25:
 * no overflow for s up to 2^40). Measured against libm's pow in double over every float in
 * [1e-5, 2^20] and every 7th in [2^-40, 2^40] on the Zen 3 machine (a sweep program outside the
 * tree that includes this file): at most 1.67 ulp of the float result (the AVX-512 rows' 1.92);
 * lra_rcp 0.50 ulp. */
LRA_IN __m256 lra_pow34(__m256 s, __m256 *rr)
{
    const __m256 r = _mm256_rsqrt_ps(s);
    *rr = _mm256_mul_ps(r, r);
    const __m256 q0 = _mm256_mul_ps(*rr, _mm256_rsqrt_ps(r));
    const __m256 m = _mm256_mul_ps(q0, s);
    const __m256 e =
        _mm256_fnmadd_ps(_mm256_mul_ps(_mm256_mul_ps(m, m), m), q0, _mm256_set1_ps(1.0f));
    const __m256 c = _mm256_fmadd_ps(e, _mm256_set1_ps(0.15625f), _mm256_set1_ps(0.25f));
    return _mm256_fmadd_ps(_mm256_mul_ps(q0, e), c, q0);
}

/* 1 / s from rr = rsqrt(s)^2 (lra_pow34's): rr (1 - d)^-1 with d = 1 - s rr (one fma: exact
 * but for its rounding; |d| < 2^-10) to second order, rr (1 + d + d^2): truncation below
 * 2^-30. */
LRA_IN __m256 lra_rcp(__m256 s, __m256 rr)
{
    const __m256 d = _mm256_fnmadd_ps(s, rr, _mm256_set1_ps(1.0f));
    return _mm256_fmadd_ps(rr, _mm256_fmadd_ps(d, d, d), rr);
}

/* Lane j: element j + k of the run (prev | cur | next), k in [-8, 8] (a constant after
 * inlining): 128-bit lane swaps and in-lane byte shifts. */
LRA_IN __m256 lra_sh(__m256 prev, __m256 cur, __m256 next, int k)
{
    const __m256i c = _mm256_castps_si256(cur);
    const __m256i tn = _mm256_castps_si256(_mm256_permute2f128_ps(cur, next, 0x21));
    const __m256i tp = _mm256_castps_si256(_mm256_permute2f128_ps(prev, cur, 0x21));
    const __m256i n = _mm256_castps_si256(next), pv = _mm256_castps_si256(prev);
    switch (k) {
    case -8:
        return prev;
    case -7:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(tp, pv, 4));
    case -6:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(tp, pv, 8));
    case -5:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(tp, pv, 12));
    case -4:
        return _mm256_castsi256_ps(tp);
    case -3:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(c, tp, 4));
    case -2:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(c, tp, 8));
    case -1:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(c, tp, 12));
    case 1:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(tn, c, 4));
    case 2:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(tn, c, 8));
    case 3:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(tn, c, 12));
    case 4:
        return _mm256_castsi256_ps(tn);
    case 5:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(n, tn, 4));
    case 6:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(n, tn, 8));
    case 7:
        return _mm256_castsi256_ps(_mm256_alignr_epi8(n, tn, 12));
    case 8:
        return next;
    default:
        return cur;
    }
}

/* Sum of elements j - lo .. j - lo + win - 1 of (prev | cur | next) for lane j, in that order
 * (win 5: written out). */
LRA_IN __m256 lra_winsum(__m256 prev, __m256 cur, __m256 next, int win, int lo)
{
    if (win == 5 && lo == 2) {
        __m256 s = lra_sh(prev, cur, next, -2);
        s = _mm256_add_ps(s, lra_sh(prev, cur, next, -1));
        s = _mm256_add_ps(s, cur);
        s = _mm256_add_ps(s, lra_sh(prev, cur, next, 1));
        return _mm256_add_ps(s, lra_sh(prev, cur, next, 2));
    }
    __m256 s = lra_sh(prev, cur, next, -lo);
    for (int t = 1; t < win; t++)
        s = _mm256_add_ps(s, lra_sh(prev, cur, next, t - lo));
    return s;
}

/* Sum of squares of lanes b .. b + 7 of five rows, in order. */
LRA_IN __m256 lra_sq5(const float *r0, const float *r1, const float *r2, const float *r3,
                      const float *r4, int64_t b)
{
    __m256 v = _mm256_loadu_ps(r0 + b), s = _mm256_mul_ps(v, v);
    v = _mm256_loadu_ps(r1 + b), s = _mm256_fmadd_ps(v, v, s);
    v = _mm256_loadu_ps(r2 + b), s = _mm256_fmadd_ps(v, v, s);
    v = _mm256_loadu_ps(r3 + b), s = _mm256_fmadd_ps(v, v, s);
    v = _mm256_loadu_ps(r4 + b);
    return _mm256_fmadd_ps(v, v, s);
}

/* Sum of squares of lanes b .. b + 7 (the first n) of the rows, in order (nr >= 1). */
LRA_IN __m256 lra_sqsum(const float *const *rows, int nr, int64_t b, int64_t n)
{
    if (nr == 5 && n >= 8)
        return lra_sq5(rows[0], rows[1], rows[2], rows[3], rows[4], b);
    __m256 v = lra_load(rows[0] + b, n), s = _mm256_mul_ps(v, v);
    for (int k = 1; k < nr; k++) {
        v = lra_load(rows[k] + b, n);
        s = _mm256_fmadd_ps(v, v, s);
    }
    return s;
}

/* lra_fwd_plane's full vectors b .. b1 - 8 of a five-row window (rows[0 .. 4], x row xc, the
 * next row nx prefetched, output row yo, streamed when ntr): stores every vector up to the
 * first with lanes to redo (returned: its b, its value in *rv, the lanes in *bdv; b1 when
 * none). No calls in the loop. */
LRA __attribute__((noinline)) static int64_t lra_fwd_run5(const float *const *rows, const float *xc,
                                                          const float *nx, float *yo, int64_t b,
                                                          int64_t b1, int ntr, const float *cst,
                                                          __m256 *rv, unsigned *bdv)
{
    const __m256 va = _mm256_set1_ps(cst[0]), vk = _mm256_set1_ps(cst[1]);
    const float *const r0 = rows[0], *const r1 = rows[1], *const r2 = rows[2], *const r3 = rows[3],
                       *const r4 = rows[4];
    for (; b < b1; b += 8) {
        _mm_prefetch((const char *)(nx + b), _MM_HINT_T1);
        const __m256 s = _mm256_fmadd_ps(va, lra_sq5(r0, r1, r2, r3, r4, b), vk);
        __m256 rr;
        const __m256 r = _mm256_mul_ps(_mm256_loadu_ps(xc + b), lra_pow34(s, &rr));
        const unsigned bd = 0xffu & ~(unsigned)_mm256_movemask_ps(lra_sok(s));
        if (__builtin_expect(bd != 0, 0)) {
            *rv = r, *bdv = bd;
            break;
        }
        lra_st8(yo + b, r, ntr);
    }
    return b;
}

/* The common forward on plane rows (mode 3's units: up to LRF_PBIG positions of one image, x
 * rows read in place, the next one prefetched into L2 across this row's arithmetic). */
LRA static void lra_fwd_plane(const lrf_plan_t *f, const fd_lrn_problem_t *p,
                              const fd_lrn_args_t *a, int64_t u)
{
    const int win = (int)p->n, lb = (win - 1) / 2, la = win - 1 - lb;
    const int64_t C = f->C, P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    const __m256 vk = _mm256_set1_ps((float)p->k), va = _mm256_set1_ps((float)(p->alpha / p->n));
    const float *x = (const float *)a->x + n * f->s0[1] + sp0;
    float *y = (float *)a->out + n * f->s0[0] + sp0;
    const int64_t xcs = f->s1[1], ycs = f->s1[0];
    const int64_t np = f->S - sp0 < P ? f->S - sp0 : P;
    const float cst[2] = {(float)(p->alpha / p->n), (float)p->k};
    for (int64_t c = 0; c < C; c++) {
        const float *rows[CUDNN_LRN_MAX_N];
        int nr = 0;
        for (int64_t j = c - lb < 0 ? 0 : c - lb; j <= c + la && j < C; j++)
            rows[nr++] = x + j * xcs;
        const float *xc = x + c * xcs, *nx = c + la + 1 < C ? x + (c + la + 1) * xcs : xc;
        float *yo = y + c * ycs;
        int64_t b = 0;
        if (nr == 5) { /* the full vectors of five-row windows: lra_fwd_run5 */
            const int ntr = f->nt && ((uintptr_t)yo & 31) == 0;
            const int64_t b1 = np / 8 * 8;
            while (b < b1) {
                __m256 r;
                unsigned bd;
                b = lra_fwd_run5(rows, xc, nx, yo, b, b1, ntr, cst, &r, &bd);
                if (b >= b1)
                    break;
                float v[16];
                _mm256_storeu_ps(v, r);
                lrf_fix_fwd_v(v, bd, p, a, x + b, xcs, 1, y + b, ycs, 1, C, c, 0);
                lra_store(yo + b, 8, _mm256_loadu_ps(v), ntr);
                b += 8;
            }
        }
        for (; b < np; b += 8) {
            const int64_t len = np - b;
            _mm_prefetch((const char *)(nx + b), _MM_HINT_T1);
            const __m256 s = _mm256_fmadd_ps(va, lra_sqsum(rows, nr, b, len), vk);
            __m256 rr, r = _mm256_mul_ps(lra_load(xc + b, len), lra_pow34(s, &rr));
            const unsigned bd = lra_notok(lra_sok(s), len);
            if (__builtin_expect(bd != 0, 0)) {
                float v[16];
                _mm256_storeu_ps(v, r);
                lrf_fix_fwd_v(v, bd, p, a, x + b, xcs, 1, y + b, ycs, 1, C, c, 0);
                r = _mm256_loadu_ps(v);
            }
            lra_store(yo + b, len, r, f->nt);
        }
    }
}

/* The common forward on pixel rows (16 pixels a unit, lanes along one pixel's channels):
 * pixels [sp0, sp1) of image n, window win from lb channels back (constants for window 5);
 * the lanes to redo are noted per vector and fixed after the pixel's stores. */
LRA_IN void lra_fwd_px(const lrf_plan_t *f, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                       int64_t n, int64_t sp0, int64_t sp1, int win, int lb)
{
    const int64_t C = f->C, nv = (C + 7) / 8;
    const __m256 vk = _mm256_set1_ps((float)p->k), va = _mm256_set1_ps((float)(p->alpha / p->n));
    const __m256 zero = _mm256_setzero_ps();
    float okb[LRF_BUF] __attribute__((aligned(32))); /* per vector: lra_sok's lanes */
    for (int64_t sp = sp0; sp < sp1; sp++) {
        const float *x = (const float *)a->x + n * f->s0[1] + sp * f->ps[1];
        float *y = (float *)a->out + n * f->s0[0] + sp * f->ps[0];
        __m256 xc = lra_load(x, C), xn = nv > 1 ? lra_load(x + 8, C - 8) : zero;
        __m256 qp = zero, qc = _mm256_mul_ps(xc, xc), qn = _mm256_mul_ps(xn, xn);
        __m256 okv = _mm256_castsi256_ps(_mm256_set1_epi32(-1)); /* every lane, past C too */
        for (int64_t i = 0; i < nv; i++) {
            const int64_t len = C - 8 * i;
            const __m256 s = _mm256_fmadd_ps(va, lra_winsum(qp, qc, qn, win, lb), vk);
            __m256 rr;
            const __m256 r = _mm256_mul_ps(xc, lra_pow34(s, &rr)), ok = lra_sok(s);
            _mm256_store_ps(okb + 8 * i, ok);
            okv = _mm256_and_ps(okv, ok);
            lra_store(y + 8 * i, len, r, f->nt);
            xc = xn;
            xn = i + 2 < nv ? lra_load(x + 8 * (i + 2), C - 8 * (i + 2)) : zero;
            qp = qc, qc = qn, qn = _mm256_mul_ps(xn, xn);
        }
        if (__builtin_expect(_mm256_movemask_ps(okv) != 0xff, 0)) {
            _mm_sfence(); /* the vectors' streaming stores first: the lanes redone go over them */
            for (int64_t i = 0; i < nv; i++) {
                const unsigned bd = lra_notok(_mm256_load_ps(okb + 8 * i), C - 8 * i);
                for (int l = 0; l < 8; l++)
                    if (bd >> l & 1)
                        y[8 * i + l] = lrf_slow_fwd(p, a, x, 1, y, 1, C, 8 * i + l);
            }
        }
    }
}

LRA static void lra_fwd_pix(const lrf_plan_t *f, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                            int64_t u)
{
    const int win = (int)p->n;
    const int64_t P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    const int64_t sp1 = sp0 + P < f->S ? sp0 + P : f->S;
    if (win == 5)
        lra_fwd_px(f, p, a, n, sp0, sp1, 5, 2);
    else
        lra_fwd_px(f, p, a, n, sp0, sp1, win, (win - 1) / 2);
}

/* lra_bwd_plane's step for the full vectors from b on (b1 - b a multiple of 8) in its steady
 * state (window 5: x rows c - 2 .. c + 2, the four older w rows with no lanes to redo): the
 * same operations, this step's w row added from its register, up to the first vector whose
 * lanes need lrf_fix_bwd_v (returned: its b, its result in *rv, the lanes in *bdv; b1 when
 * none). No calls in the loop. ntr: stream the output (32-byte aligned rows). */
/* LRA_U vectors of the steady loop in lockstep (2026-12-05): each LRA_EACH line is one
 * operation on each of them, so the scheduler sees LRA_U independent chains of the ~60
 * dependent operations per vector (lra_pow34's and lra_rcp's steps inline, the products, sums
 * and tests); one vector after another, Zen 3 ran the loop at ~25 cycles a vector, twice its
 * multiplier pipes' bound. The same operations per element: the same bits. n1c64h56w56, one
 * thread, in L2, dnnbench median: 0.244 -> 0.217 ms (2 vectors), 0.206 (3), 0.198 (4). A
 * vector whose output needs lrf_fix_bwd_v ends the call as before (its b returned); the
 * group's later vectors are computed again by the next call (the same values). */
#define LRA_U 4
#define LRA_EACH(...)                                                                              \
    _Pragma("GCC unroll 4") for (int u = 0; u < LRA_U; u++)                                        \
    {                                                                                              \
        __VA_ARGS__;                                                                               \
    }

/* lra_pow34 (into pv) and lra_rcp (into rc) of LRA_U scales sv in lockstep. */
LRA_IN void lra_pow_rcp4(const __m256 *sv, __m256 *pv, __m256 *rc)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 r[LRA_U], rr[LRA_U], q0[LRA_U], m[LRA_U], e[LRA_U];
    LRA_EACH(r[u] = _mm256_rsqrt_ps(sv[u]));
    LRA_EACH(rr[u] = _mm256_mul_ps(r[u], r[u]));
    LRA_EACH(q0[u] = _mm256_mul_ps(rr[u], _mm256_rsqrt_ps(r[u])));
    LRA_EACH(m[u] = _mm256_mul_ps(q0[u], sv[u]));
    LRA_EACH(e[u] = _mm256_fnmadd_ps(_mm256_mul_ps(_mm256_mul_ps(m[u], m[u]), m[u]), q0[u], one));
    LRA_EACH(pv[u] = _mm256_fmadd_ps(
                 _mm256_mul_ps(q0[u], e[u]),
                 _mm256_fmadd_ps(e[u], _mm256_set1_ps(0.15625f), _mm256_set1_ps(0.25f)), q0[u]));
    LRA_EACH(e[u] = _mm256_fnmadd_ps(sv[u], rr[u], one)); /* lra_rcp's d */
    LRA_EACH(rc[u] = _mm256_fmadd_ps(rr[u], _mm256_fmadd_ps(e[u], e[u], e[u]), rr[u]));
}
LRA __attribute__((noinline)) static int64_t
lra_bwd_run5(const lrf_bstep_t *q, int64_t b, int64_t b1, unsigned char *bmv, unsigned *rbp,
             int ntr, int lock, const float *cst, __m256 *rv, unsigned *bdv)
{
    const __m256 va = _mm256_set1_ps(cst[0]), vk = _mm256_set1_ps(cst[1]);
    const __m256 vcoef = _mm256_set1_ps(cst[2]);
    const float *const x0 = q->x[0], *const x1 = q->x[1], *const x2 = q->x[2], *const x3 = q->x[3],
                       *const x4 = q->x[4];
    const float *const g = q->g, *const gi = q->gi;
    const float *const w0 = q->w[0], *const w1 = q->w[1], *const w2 = q->w[2], *const w3 = q->w[3];
    const float *const px = q->px, *const pg = q->pg;
    float *const wo = q->wo, *const go = q->go, *const o = q->o;
    unsigned rb = *rbp;
    for (; lock && b + 8 * LRA_U <= b1; b += 8 * LRA_U, bmv += LRA_U) {
        for (int u = 0; u < LRA_U; u += 2) { /* a line each */
            _mm_prefetch((const char *)(px + b + 8 * u), _MM_HINT_T0);
            _mm_prefetch((const char *)(pg + b + 8 * u), _MM_HINT_T0);
        }
        __m256 sq[LRA_U], v[LRA_U], sv[LRA_U], rr[LRA_U], pv[LRA_U], gv[LRA_U], wv[LRA_U];
        __m256 acc[LRA_U];
        unsigned tb[LRA_U];
        LRA_EACH(v[u] = _mm256_loadu_ps(x0 + b + 8 * u); sq[u] = _mm256_mul_ps(v[u], v[u]));
        LRA_EACH(v[u] = _mm256_loadu_ps(x1 + b + 8 * u);
                 sq[u] = _mm256_fmadd_ps(v[u], v[u], sq[u]));
        LRA_EACH(v[u] = _mm256_loadu_ps(x2 + b + 8 * u);
                 sq[u] = _mm256_fmadd_ps(v[u], v[u], sq[u]));
        LRA_EACH(v[u] = _mm256_loadu_ps(x3 + b + 8 * u);
                 sq[u] = _mm256_fmadd_ps(v[u], v[u], sq[u]));
        LRA_EACH(v[u] = _mm256_loadu_ps(x4 + b + 8 * u);
                 sq[u] = _mm256_fmadd_ps(v[u], v[u], sq[u]));
        LRA_EACH(sv[u] = _mm256_fmadd_ps(va, sq[u], vk));
        lra_pow_rcp4(sv, pv, rr);
        LRA_EACH(gv[u] = _mm256_loadu_ps(g + b + 8 * u));
        LRA_EACH(_mm256_storeu_ps(go + b + 8 * u, _mm256_mul_ps(gv[u], pv[u])));
        LRA_EACH(wv[u] = _mm256_mul_ps(
                     _mm256_mul_ps(gv[u], _mm256_mul_ps(_mm256_loadu_ps(x2 + b + 8 * u), pv[u])),
                     rr[u]));
        LRA_EACH(_mm256_storeu_ps(wo + b + 8 * u, wv[u]));
        LRA_EACH(tb[u] = 0xffu & ~(unsigned)_mm256_movemask_ps(
                                     _mm256_and_ps(lra_sok(sv[u]), lra_fin(wv[u]))));
        LRA_EACH(bmv[u] = (unsigned char)tb[u]; rb |= tb[u]);
        LRA_EACH(acc[u] = _mm256_add_ps(_mm256_loadu_ps(w0 + b + 8 * u),
                                        _mm256_loadu_ps(w1 + b + 8 * u)));
        LRA_EACH(acc[u] = _mm256_add_ps(acc[u], _mm256_loadu_ps(w2 + b + 8 * u)));
        LRA_EACH(acc[u] = _mm256_add_ps(acc[u], _mm256_loadu_ps(w3 + b + 8 * u)));
        LRA_EACH(acc[u] = _mm256_add_ps(acc[u], wv[u]));
        LRA_EACH(acc[u] = _mm256_fnmadd_ps(_mm256_mul_ps(vcoef, _mm256_loadu_ps(x0 + b + 8 * u)),
                                           acc[u], _mm256_loadu_ps(gi + b + 8 * u)));
        for (int u = 0; u < LRA_U; u++) {
            const unsigned bd = tb[u] | (0xffu & ~(unsigned)_mm256_movemask_ps(lra_fin(acc[u])));
            if (__builtin_expect(bd != 0, 0)) {
                *rv = acc[u], *bdv = bd;
                *rbp = rb;
                return b + 8 * u;
            }
            lra_st8(o + b + 8 * u, acc[u], ntr);
        }
    }
    for (; b < b1; b += 8, bmv++) {
        _mm_prefetch((const char *)(px + b), _MM_HINT_T0);
        _mm_prefetch((const char *)(pg + b), _MM_HINT_T0);
        const __m256 xv0 = _mm256_loadu_ps(x0 + b), xv2 = _mm256_loadu_ps(x2 + b);
        __m256 v = _mm256_loadu_ps(x1 + b), sq = _mm256_mul_ps(xv0, xv0);
        sq = _mm256_fmadd_ps(v, v, sq);
        sq = _mm256_fmadd_ps(xv2, xv2, sq);
        v = _mm256_loadu_ps(x3 + b), sq = _mm256_fmadd_ps(v, v, sq);
        v = _mm256_loadu_ps(x4 + b), sq = _mm256_fmadd_ps(v, v, sq);
        const __m256 sv = _mm256_fmadd_ps(va, sq, vk), gv = _mm256_loadu_ps(g + b);
        __m256 rr;
        const __m256 pv = lra_pow34(sv, &rr);
        _mm256_storeu_ps(go + b, _mm256_mul_ps(gv, pv));
        const __m256 wv = _mm256_mul_ps(_mm256_mul_ps(gv, _mm256_mul_ps(xv2, pv)), lra_rcp(sv, rr));
        _mm256_storeu_ps(wo + b, wv);
        const unsigned tb =
            0xffu & ~(unsigned)_mm256_movemask_ps(_mm256_and_ps(lra_sok(sv), lra_fin(wv)));
        *bmv = (unsigned char)tb;
        rb |= tb;
        __m256 acc = _mm256_add_ps(_mm256_loadu_ps(w0 + b), _mm256_loadu_ps(w1 + b));
        acc = _mm256_add_ps(acc, _mm256_loadu_ps(w2 + b));
        acc = _mm256_add_ps(acc, _mm256_loadu_ps(w3 + b));
        acc = _mm256_add_ps(acc, wv);
        const __m256 r = _mm256_fnmadd_ps(_mm256_mul_ps(vcoef, xv0), acc, _mm256_loadu_ps(gi + b));
        const unsigned bd = tb | (0xffu & ~(unsigned)_mm256_movemask_ps(lra_fin(r)));
        if (__builtin_expect(bd != 0, 0)) {
            *rv = r, *bdv = bd;
            break;
        }
        lra_st8(o + b, r, ntr);
    }
    *rbp = rb;
    return b;
}

/* The common backward on plane rows (mode 4's units and rings: win rows of w = dy y / s and
 * lb + 1 rows of dy s^-beta, x read in place): one pass per step c computes the terms of
 * channel c and the output of channel c - lb (whose adjoint window ends at c: this step's w
 * from its register). y is not read: y = x s^-beta from this step's power (file header);
 * the lanes to redo are kept per ring row and vector. */
LRA static void lra_bwd_plane(const lrf_plan_t *f, const fd_lrn_problem_t *p,
                              const fd_lrn_args_t *a, int64_t u)
{
    const int win = (int)p->n, lb = (win - 1) / 2, la = win - 1 - lb;
    const int64_t C = f->C, P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    const __m256 vk = _mm256_set1_ps((float)p->k), va = _mm256_set1_ps((float)(p->alpha / p->n));
    const __m256 vcoef = _mm256_set1_ps((float)(2.0 * p->beta * p->alpha / p->n));
    const int64_t RP = P + 16; /* ring row stride: full-vector stores past np */
    float ring[LRF_BW];
    unsigned char bm[CUDNN_LRN_MAX_N][LRF_BWMAX / 8 + 2];
    int rowbad[CUDNN_LRN_MAX_N];
    float *wr = ring, *gr = ring + win * RP;
    const float *t[4];
    int64_t cs[4];
    float *dx = lrf_bwd_bases(f, a, n, sp0, t, cs);
    const int64_t np = f->S - sp0 < P ? f->S - sp0 : P;
    for (int64_t c = 0; c < C + lb; c++) {
        const int term = c < C;
        const int64_t i = c - lb;
        const float *xw[CUDNN_LRN_MAX_N] = {0};
        int nx = 0;
        float *wo = wr + (c % win) * RP, *go = gr + (c % (lb + 1)) * RP;
        unsigned char *bmc = bm[c % win];
        const float *g = t[3] + c * cs[3], *xc = t[1] + c * cs[1];
        const float *px = xc, *pg = g; /* the next rows, prefetched (or this step's again) */
        if (term) {
            for (int64_t j = c - lb < 0 ? 0 : c - lb; j <= c + la && j < C; j++)
                xw[nx++] = t[1] + j * cs[1];
            rowbad[c % win] = 0;
            if (c + la + 1 < C)
                px = t[1] + (c + la + 1) * cs[1];
            if (c + 1 < C)
                pg = t[3] + (c + 1) * cs[3];
        }
        /* the output of channel i: the w rows of its adjoint window but this step's */
        const float *wrows[CUDNN_LRN_MAX_N];
        const unsigned char *bmr[CUDNN_LRN_MAX_N];
        int nw = 0, oldbad = 0;
        const float *xi = NULL, *gi = NULL;
        float *o = NULL;
        if (i >= 0) {
            for (int64_t j = i - la < 0 ? 0 : i - la; j <= i + lb && j < C; j++) {
                if (term && j == c)
                    continue;
                wrows[nw] = wr + (j % win) * RP;
                bmr[nw++] = bm[j % win];
                oldbad |= rowbad[j % win];
            }
            xi = t[1] + i * cs[1], gi = gr + (i % (lb + 1)) * RP;
            o = dx + i * cs[0];
        }
        int64_t b = 0, v = 0;
        if (win == 5 && term && i >= 0 && nx == 5 && nw == 4 && !oldbad && np >= 8) {
            /* the full vectors through lra_bwd_run5, the lanes to redo fixed here */
            const int64_t b1 = np / 8 * 8;
            const float cst[3] = {(float)(p->alpha / p->n), (float)p->k,
                                  (float)(2.0 * p->beta * p->alpha / p->n)};
            const lrf_bstep_t q = {{xw[0], xw[1], xw[2], xw[3], xw[4]},
                                   g,
                                   {wrows[0], wrows[1], wrows[2], wrows[3]},
                                   gi,
                                   px,
                                   pg,
                                   wo,
                                   go,
                                   o};
            const int ntr = f->nt && ((uintptr_t)o & 31) == 0;
            unsigned rb = 0;
            while (b < b1) {
                __m256 r;
                unsigned bd;
                b = lra_bwd_run5(&q, b, b1, bmc + b / 8, &rb, ntr, f->lock, cst, &r, &bd);
                if (b >= b1)
                    break;
                float vv[16];
                _mm256_storeu_ps(vv, r);
                lrf_fix_bwd_v(vv, bd, p, a, t, cs, C, i, b);
                lra_store(o + b, 8, _mm256_loadu_ps(vv), ntr);
                b += 8;
            }
            rowbad[c % win] |= rb != 0;
            v = b / 8;
        }
        for (; b < np; b += 8, v++) {
            const int64_t len = np - b;
            __m256 wv = _mm256_setzero_ps();
            unsigned tb = 0;
            if (term) {
                _mm_prefetch((const char *)(px + b), _MM_HINT_T0);
                _mm_prefetch((const char *)(pg + b), _MM_HINT_T0);
                const __m256 sv = _mm256_fmadd_ps(va, lra_sqsum(xw, nx, b, len), vk);
                __m256 rr;
                const __m256 pv = lra_pow34(sv, &rr), gv = lra_load(g + b, len);
                _mm256_storeu_ps(go + b, _mm256_mul_ps(gv, pv));
                wv = _mm256_mul_ps(_mm256_mul_ps(gv, _mm256_mul_ps(lra_load(xc + b, len), pv)),
                                   lra_rcp(sv, rr));
                _mm256_storeu_ps(wo + b, wv);
                tb = lra_notok(_mm256_and_ps(lra_sok(sv), lra_fin(wv)), len);
                bmc[v] = (unsigned char)tb;
                rowbad[c % win] |= tb != 0;
            }
            if (i < 0)
                continue;
            __m256 acc = nw > 0 ? _mm256_loadu_ps(wrows[0] + b) : wv;
            for (int k = 1; k < nw; k++)
                acc = _mm256_add_ps(acc, _mm256_loadu_ps(wrows[k] + b));
            if (term && nw > 0)
                acc = _mm256_add_ps(acc, wv);
            __m256 r = _mm256_fnmadd_ps(_mm256_mul_ps(vcoef, lra_load(xi + b, len)), acc,
                                        _mm256_loadu_ps(gi + b));
            unsigned bd = tb | lra_notok(lra_fin(r), len);
            if (oldbad)
                for (int k = 0; k < nw; k++)
                    bd |= bmr[k][v];
            if (__builtin_expect(bd != 0, 0)) {
                float vv[16];
                _mm256_storeu_ps(vv, r);
                lrf_fix_bwd_v(vv, bd, p, a, t, cs, C, i, b);
                r = _mm256_loadu_ps(vv);
            }
            lra_store(o + b, len, r, f->nt);
        }
    }
}

/* The common backward on pixel rows: per pixel, the terms into stack rows (dy s^-beta, and w
 * = dy y / s between a zero vector and zero vectors after, read back whole for the adjoint
 * window's shifts), y = x s^-beta not read (file header). A pixel with a term to redo takes
 * the ref's double formula whole, a non-finite output lane alone (after the pixel's stores).
 * Pixels [sp0, sp1) of image n; win, lb, la constants for window 5. With window 5 and C a
 * multiple of 32 both loops run LRA_U vectors in lockstep (x^2 staged in a stack row between
 * zero vectors for the lane shifts): n8c64h28w28 / n1c64h56w56, one thread in L2 / L3,
 * 2026-12-05: 1.10x (same bits). Window sums read from the staged rows by unaligned loads
 * instead of lane shifts were slower (0.96x: the loads span the rows' fresh stores). */
LRA_IN void lra_bwd_px(const lrf_plan_t *f, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                       int64_t n, int64_t sp0, int64_t sp1, int win, int lb, int la)
{
    const int64_t C = f->C, nv = (C + 7) / 8;
    const __m256 vk = _mm256_set1_ps((float)p->k), va = _mm256_set1_ps((float)(p->alpha / p->n));
    const __m256 vcoef = _mm256_set1_ps((float)(2.0 * p->beta * p->alpha / p->n));
    const __m256 zero = _mm256_setzero_ps();
    const int64_t one[4] = {1, 1, 1, 1};
    float w[LRF_BUF] __attribute__((aligned(32))), gp[LRF_BUF] __attribute__((aligned(32)));
    float qb[LRF_BUF] __attribute__((aligned(32)));
    /* C a multiple of 32, window 5: the terms of LRA_U vectors in lockstep (lra_bwd_run5's
     * finding), x^2 staged in qb between zero vectors; the same operations, the same bits */
    const int lock = f->lock && C % (8 * LRA_U) == 0 && win == 5 && lb == 2;
    for (int64_t sp = sp0; sp < sp1; sp++) {
        const float *t[4];
        float *dx = lrf_pix_bases(f, a, n, sp, t);
        __m256 okv = _mm256_castsi256_ps(_mm256_set1_epi32(-1)); /* every lane, past C too */
        _mm256_store_ps(w, zero);
        if (lock) {
            _mm256_store_ps(qb, zero);
            _mm256_store_ps(qb + 8 * (nv + 1), zero);
            for (int64_t i = 0; i < nv; i++) {
                const __m256 xv = _mm256_loadu_ps(t[1] + 8 * i);
                _mm256_store_ps(qb + 8 * (i + 1), _mm256_mul_ps(xv, xv));
            }
            for (int64_t i = 0; i < nv; i += LRA_U) {
                __m256 sv[LRA_U], pv[LRA_U], rc[LRA_U], g[LRA_U], wv[LRA_U];
                LRA_EACH(sv[u] =
                             _mm256_fmadd_ps(va,
                                             lra_winsum(_mm256_load_ps(qb + 8 * (i + u)),
                                                        _mm256_load_ps(qb + 8 * (i + u + 1)),
                                                        _mm256_load_ps(qb + 8 * (i + u + 2)), 5, 2),
                                             vk));
                lra_pow_rcp4(sv, pv, rc);
                LRA_EACH(g[u] = _mm256_loadu_ps(t[3] + 8 * (i + u)));
                LRA_EACH(_mm256_store_ps(gp + 8 * (i + u), _mm256_mul_ps(g[u], pv[u])));
                LRA_EACH(wv[u] = _mm256_mul_ps(
                             _mm256_mul_ps(
                                 g[u], _mm256_mul_ps(_mm256_loadu_ps(t[1] + 8 * (i + u)), pv[u])),
                             rc[u]));
                LRA_EACH(_mm256_store_ps(w + 8 * (i + u + 1), wv[u]));
                LRA_EACH(okv = _mm256_and_ps(okv, _mm256_and_ps(lra_sok(sv[u]), lra_fin(wv[u]))));
            }
        }
        __m256 xc = zero, xn = zero, qp = zero, qc = zero, qn = zero;
        if (!lock) {
            xc = lra_load(t[1], C), xn = nv > 1 ? lra_load(t[1] + 8, C - 8) : zero;
            qc = _mm256_mul_ps(xc, xc), qn = _mm256_mul_ps(xn, xn);
        }
        for (int64_t i = 0; i < nv && !lock; i++) {
            const int64_t len = C - 8 * i;
            const __m256 s = _mm256_fmadd_ps(va, lra_winsum(qp, qc, qn, win, lb), vk);
            __m256 rr;
            const __m256 pv = lra_pow34(s, &rr), g = lra_load(t[3] + 8 * i, len);
            _mm256_store_ps(gp + 8 * i, _mm256_mul_ps(g, pv));
            /* lanes past C: 0 * 0 / s = +0, the zero padding the windows need */
            const __m256 wv =
                _mm256_mul_ps(_mm256_mul_ps(g, _mm256_mul_ps(xc, pv)), lra_rcp(s, rr));
            _mm256_store_ps(w + 8 * (i + 1), wv);
            okv = _mm256_and_ps(okv, _mm256_and_ps(lra_sok(s), lra_fin(wv)));
            xc = xn;
            xn = i + 2 < nv ? lra_load(t[1] + 8 * (i + 2), C - 8 * (i + 2)) : zero;
            qp = qc, qc = qn, qn = _mm256_mul_ps(xn, xn);
        }
        if (__builtin_expect(_mm256_movemask_ps(okv) != 0xff, 0)) {
            for (int64_t c = 0; c < C; c++)
                gp[c] = lrf_slow_bwd(p, a, t, one, C, c); /* gp: free now */
            memcpy(dx, gp, (size_t)C * sizeof(float));
            continue;
        }
        _mm256_store_ps(w + 8 * (nv + 1), zero);
        for (int64_t i = 0; i < nv && lock; i += LRA_U) {
            __m256 r[LRA_U];
            LRA_EACH(r[u] =
                         _mm256_fnmadd_ps(_mm256_mul_ps(vcoef, _mm256_loadu_ps(t[1] + 8 * (i + u))),
                                          lra_winsum(_mm256_load_ps(w + 8 * (i + u)),
                                                     _mm256_load_ps(w + 8 * (i + u + 1)),
                                                     _mm256_load_ps(w + 8 * (i + u + 2)), 5, 2),
                                          _mm256_load_ps(gp + 8 * (i + u))));
            LRA_EACH(okv = _mm256_and_ps(okv, lra_fin(r[u])));
            LRA_EACH(lra_store(dx + 8 * (i + u), 8, r[u], f->nt));
        }
        __m256 w0 = zero, w1 = _mm256_load_ps(w + 8);
        for (int64_t i = 0; i < nv && !lock; i++) {
            const int64_t len = C - 8 * i;
            const __m256 w2 = _mm256_load_ps(w + 8 * (i + 2));
            const __m256 acc = lra_winsum(w0, w1, w2, win, la);
            const __m256 r = _mm256_fnmadd_ps(_mm256_mul_ps(vcoef, lra_load(t[1] + 8 * i, len)),
                                              acc, _mm256_load_ps(gp + 8 * i));
            okv = _mm256_and_ps(okv, lra_fin(r)); /* lanes past C: +0 */
            lra_store(dx + 8 * i, len, r, f->nt);
            w0 = w1, w1 = w2;
        }
        if (__builtin_expect(_mm256_movemask_ps(okv) != 0xff, 0)) {
            _mm_sfence(); /* the vectors' streaming stores first: read back, lanes redone */
            for (int64_t c = 0; c < C; c++)
                if (!isfinite(dx[c]))
                    dx[c] = lrf_slow_bwd(p, a, t, one, C, c);
        }
    }
}

LRA static void lra_bwd_pix(const lrf_plan_t *f, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                            int64_t u)
{
    const int win = (int)p->n;
    const int64_t P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    const int64_t sp1 = sp0 + P < f->S ? sp0 + P : f->S;
    if (win == 5)
        lra_bwd_px(f, p, a, n, sp0, sp1, 5, 2, 2);
    else
        lra_bwd_px(f, p, a, n, sp0, sp1, win, (win - 1) / 2, win - 1 - (win - 1) / 2);
}

LRA static void lra_unit(const lrf_plan_t *f, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                         int64_t u, int bwd)
{
    if (bwd && f->mode == 4)
        lra_bwd_plane(f, p, a, u);
    else if (bwd)
        lra_bwd_pix(f, p, a, u);
    else if (f->mode == 3)
        lra_fwd_plane(f, p, a, u);
    else
        lra_fwd_pix(f, p, a, u);
}

/* 1 when an AVX-512 or AVX2 row ran. */
static int lrf_run(const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                   const struct cudnnTensorStruct *const *t, int nt, int bwd)
{
    const int isa = lrf_isa(),
              common = p->beta == 0.75 && (float)a->alpha == 1.0f && (float)a->beta == 0.0f;
    lrf_plan_t f;
    if (isa == 0 || (isa == 1 && !common) || !lrf_plan(&f, t, nt, p->n))
        return 0;
    f.nt = a->beta == 0.0 && (size_t)(f.N * f.C * f.S) * sizeof(float) >= FD_CPU_NT_MIN;
    /* FREEDNN_CPU_LRN_LOCK=0: the AVX2 backward one vector at a time, the operations the
     * lockstep loops restate (tests/impl/test_cpu_lrn_fast.c compares their bits) */
    const char *lk = getenv("FREEDNN_CPU_LRN_LOCK");
    f.lock = !(lk && strcmp(lk, "0") == 0);
    if (!bwd && f.mode == 1 && common) {
        /* the common forward reads its rows in place: long rows (up to LRF_PBIG positions), but
         * at least 8 units where the tensor allows 2048-position rows (threads; any split
         * gives the same bits: each output is computed alone) */
        f.mode = 3;
        f.pw = f.S < LRF_PBIG ? f.S : LRF_PBIG;
        while (f.N * ((f.S + f.pw - 1) / f.pw) < 8 && f.pw > 2048)
            f.pw = (f.pw / 2 + 15) / 16 * 16;
    }
    if (bwd && f.mode == 1 && common) {
        /* the common backward's fused rows: the rings (win w rows, lb + 1 dy s^-beta rows, 16
         * floats of padding each) in LRF_BW floats */
        const int64_t rows = (int64_t)p->n + ((int64_t)p->n - 1) / 2 + 1;
        int64_t pw = (LRF_BW / rows - 16) / 16 * 16;
        pw = pw < LRF_BWMAX ? pw : LRF_BWMAX;
        f.mode = 4;
        f.pw = pw;
    }
    const int64_t units = f.N * ((f.S + f.pw - 1) / f.pw);
#pragma omp parallel for schedule(static) if (f.N * f.C * f.S >= FD_CPU_PAR_MIN / 4 && units > 1)
    for (int64_t u = 0; u < units; u++) {
        if (isa == 1)
            lra_unit(&f, p, a, u, bwd);
        else if (bwd && f.mode == 4)
            lrf_bwd_plane34(&f, p, a, u);
        else if (bwd)
            lrf_bwd_unit(&f, p, a, u);
        else if (f.mode == 3)
            lrf_fwd_plane34(&f, p, a, u);
        else
            lrf_fwd_unit(&f, p, a, u);
        if (f.nt)
            _mm_sfence(); /* this unit's streaming stores, before the loop's barrier */
    }
    return 1;
}
#else
static int lrf_run(const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                   const struct cudnnTensorStruct *const *t, int nt, int bwd)
{
    (void)p, (void)a, (void)t, (void)nt, (void)bwd;
    return 0;
}
#endif /* LRF_X86 */

/* v[i] = pow(v[i], y) for FLOAT outputs: lrf_pow1, the AVX-512 rows' function, so that every
 * path gives the same bits. */
FD_CPU_CLONES static void lr_pow(double *restrict v, int64_t n, double y)
{
    if (y == -0.75)
        for (int64_t i = 0; i < n; i++)
            v[i] = lrf_pow34_1(v[i]);
    else
        for (int64_t i = 0; i < n; i++)
            v[i] = lrf_pow1(v[i], y);
}

/* fwd tensors: 0 = y, 1 = x */
static void fwd_unit(const lr_plan_t *s, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                     int64_t u)
{
    int64_t base[LR_MAXT];
    int nl;
    unit_base(s, u, base, &nl);
    const int lb = (int)(p->n - 1) / 2, la = (int)p->n - 1 - lb;
    const int64_t C = s->C;
    double x[LR_BUF], sq[LR_BUF], v[LR_BUF];
    load_cl(s, 1, a->x, base[1], nl, x);
    for (int i = 0; i < lb * nl; i++)
        sq[i] = 0.0;
    for (int64_t i = 0; i < C * nl; i++)
        sq[lb * nl + i] = x[i] * x[i];
    for (int i = 0; i < la * nl; i++)
        sq[(lb + C) * nl + i] = 0.0;
    scales(p, C, nl, sq, v);
    if (s->dt == CUDNN_DATA_FLOAT) {
        lr_pow(v, C * nl, -p->beta);
        for (int64_t i = 0; i < C * nl; i++)
            v[i] = x[i] * v[i];
    } else {
        for (int64_t i = 0; i < C * nl; i++)
            v[i] = x[i] * pow(v[i], -p->beta);
    }
    store_cl(s, a->out, base[0], nl, v, a->alpha, a->beta);
}

/* bwd tensors: 0 = dx, 1 = x, 2 = y, 3 = dy.
 * dx_i = dy_i s_i^-beta - 2 beta alpha / n * x_i * sum_{c = i - la .. i + lb} dy_c y_c / s_c */
static void bwd_unit(const lr_plan_t *s, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                     int64_t u)
{
    int64_t base[LR_MAXT];
    int nl;
    unit_base(s, u, base, &nl);
    const int lb = (int)(p->n - 1) / 2, la = (int)p->n - 1 - lb;
    const int64_t C = s->C;
    const double coef = 2.0 * p->beta * p->alpha / p->n;
    double x[LR_BUF], g[LR_BUF], w[LR_BUF], sc[LR_BUF];
    load_cl(s, 1, a->x, base[1], nl, x);
    /* w: the squares, padded lb / la */
    for (int i = 0; i < lb * nl; i++)
        w[i] = 0.0;
    for (int64_t i = 0; i < C * nl; i++)
        w[lb * nl + i] = x[i] * x[i];
    for (int i = 0; i < la * nl; i++)
        w[(lb + C) * nl + i] = 0.0;
    scales(p, C, nl, w, sc);
    /* w: dy_c y_c / s_c, padded la before and lb after (the adjoint window) */
    load_cl(s, 2, a->y, base[2], nl, w + la * nl);
    load_cl(s, 3, a->dy, base[3], nl, g);
    for (int64_t i = 0; i < C * nl; i++)
        w[la * nl + i] = g[i] * w[la * nl + i] / sc[i];
    for (int i = 0; i < la * nl; i++)
        w[i] = 0.0;
    for (int i = 0; i < lb * nl; i++)
        w[(la + C) * nl + i] = 0.0;
    const int win = (int)p->n;
    const int vpow = s->dt == CUDNN_DATA_FLOAT;
    if (vpow) /* sc^-beta, in place: the w terms above already used sc itself */
        lr_pow(sc, C * nl, -p->beta);
    for (int64_t c = 0; c < C; c++) {
        double acc[LR_LANES];
        for (int l = 0; l < nl; l++)
            acc[l] = 0.0;
        for (int k = 0; k < win; k++)
            for (int l = 0; l < nl; l++)
                acc[l] += w[(c + k) * nl + l];
        for (int l = 0; l < nl; l++) {
            int64_t i = c * nl + l;
            double pw = vpow ? sc[i] : pow(sc[i], -p->beta);
            sc[i] = g[i] * pw - coef * x[i] * acc[l];
        }
    }
    store_cl(s, a->out, base[0], nl, sc, a->alpha, a->beta);
}

static int check(const struct cudnnTensorStruct *t, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(t->dtype)) {
        snprintf(why, why_size, "%s stays with ref", fd_dtype_name(t->dtype));
        return 0;
    }
    if (fd_tensor_has_negative_stride(t)) {
        snprintf(why, why_size, "negative strides");
        return 0;
    }
    if (t->dim[1] > LR_MAXC) {
        snprintf(why, why_size, "%d channels: more than the %d of the stack buffers", t->dim[1],
                 LR_MAXC);
        return 0;
    }
    return 1;
}

int fd_lrn_fwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_lrn_problem_t *p = problem;
    return check(&p->x, why, why_size) && check(&p->y, why, why_size);
}

size_t fd_lrn_fwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_lrn_fwd_cpu_run(const void *problem, const void *args)
{
    const fd_lrn_problem_t *p = problem;
    const fd_lrn_args_t *a = args;
    const struct cudnnTensorStruct *t[2] = {&p->y, &p->x};
    if (lrf_run(p, a, t, 2, 0))
        return CUDNN_STATUS_SUCCESS;
    lr_plan_t s;
    plan(&s, t, 2, p->n);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN / 4 && units > 1)
    for (int64_t u = 0; u < units; u++)
        fwd_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}

int fd_lrn_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_lrn_problem_t *p = problem;
    return check(&p->x, why, why_size) && check(&p->y, why, why_size) &&
           check(&p->dy, why, why_size) && check(&p->dx, why, why_size);
}

size_t fd_lrn_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_lrn_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_lrn_problem_t *p = problem;
    const fd_lrn_args_t *a = args;
    const struct cudnnTensorStruct *t[4] = {&p->dx, &p->x, &p->y, &p->dy};
    if (lrf_run(p, a, t, 4, 1))
        return CUDNN_STATUS_SUCCESS;
    lr_plan_t s;
    plan(&s, t, 4, p->n);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN / 4 && units > 1)
    for (int64_t u = 0; u < units; u++)
        bwd_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}
