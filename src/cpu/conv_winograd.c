/* SPDX-License-Identifier: MIT */
/*
 * conv_winograd.c - Winograd F(4x4, 3x3) convolution on the cpu backend: FLOAT forward,
 * backward data and backward filter, 2-d, 3x3 filters, stride 1, dilation 1, any padding,
 * groups, strides, both modes (src/impls.def: FWD WINOGRAD / WINOGRAD_NONFUSED, BWD_DATA
 * WINOGRAD / WINOGRAD_NONFUSED, BWD_FILTER WINOGRAD_NONFUSED; backward filter: see its section).
 *
 * One core computes a 3x3 stride-1 cross-correlation dst = alpha * corr(src, f) + beta * dst:
 *   forward    src = x, dst = y, f(o = k, i = c, r, s) = w[k][c][r][s] (flipped for
 *              CUDNN_CONVOLUTION), pad as given;
 *   bwd data   src = dy, dst = dx, f(o = c, i = k, r, s) = w[k][c][2 - r][2 - s] (not rotated
 *              for CUDNN_CONVOLUTION, whose forward already flips), pad' = 2 - pad (negative
 *              when pad > 2: the index arithmetic is signed and bounds-checked, so it still works).
 * Both are described by a plan of signed element strides, so one code path serves both.
 *
 * Algorithm (Lavin & Gray's F(m x m, r x r) with m = 4, r = 3, interpolation points 0, +-1,
 * +-2, infinity): each 4x4 output tile reads a 6x6 input tile d; V = B^T d B, U = G g G^T,
 * M = U (.) V summed over input channels, Y = A^T M A. The channel sum for each of the 36
 * transformed positions is a GEMM: M[xi] (co x tiles) = U[xi] (co x ci) V[xi] (ci x tiles),
 * done by fd_cpu_gemm (our AVX-512 SGEMM, whose sum order is fixed by K; OpenBLAS sliced along
 * ci where it serves: either way the bits do not depend on the thread count).
 * Tiles of all images are numbered together and processed in chunks, so small images (7x7:
 * four tiles each) still give the GEMMs a useful width and the workspace stays bounded.
 * The filter transform is computed in double and rounded once; input and output transforms are
 * in float. All three have AVX-512 forms with the same bits (below); with them, the filter's
 * transform is what keeps the row behind the direct one at 14 x 14 (a 256 x 256 filter becomes
 * 4x its size, in double arithmetic: a third of that layer's time). The error of an output follows
 * the size of its whole tile (the transforms mix neighbouring outputs, with constants up to 8), not
 * its own sum|terms|, so the row is held to a normwise bound: 10x the f32 table bound computed with
 * the output tensor's largest K and sum|terms| (docs/testing.md; measured worst 5.8x in
 * tests/impl/test_cpu_conv_winograd.c).
 *
 * Workspace: U for one group (36 * co * ci), then V (36 * ci * TB) and M (36 * co * TB) for
 * one chunk of TB tiles, each 64-byte aligned within the caller's buffer (which we assume
 * 16-byte aligned at least: floats only need 4).
 * Threads: the whole run holds BLAS single-threaded (fd_cpu_blas_serial_begin, gemm.h), so
 * the transforms are OpenMP loops over channels on our team and the 36 GEMMs are shared among
 * the same team (each whole, or in pieces fixed by the shape): one pool, never two fighting.
 * (Until 2026-12-06 each GEMM was split across the team in turn: a barrier per GEMM, and 2
 * threads ran ResNet-50's 56 x 56 layer only 1.26x faster than one.) Each thread owns what it
 * writes, and the GEMMs are thread-count independent, so the row is deterministic for any thread
 * count. (The transforms were serial with the pthread OpenBLAS, Debian's, until 2026-12-04: on the
 * 2-vCPU Zen 3 VM the backward data of ResNet-50's 3x3 56x56 layer then took 5.1 ms on two threads,
 * 2.8 on one.)
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/backend.h"
#include "../core/fd.h"
#include "gemm.h"

enum { WG_M = 4, WG_T = 6, WG_X = 36 };

/* Tiles per chunk: as many as keep V and M under ~32 MiB, at least 64 (and at most all;
 * FREEDNN_CPU_WINOGRAD_CHUNK sets it). */
#define WG_CHUNK_FLOATS (8 * 1024 * 1024)

typedef struct {
    int64_t n, groups, ci, co;      /* images, groups, in / out channels per group */
    int64_t ih, iw, oh, ow;         /* src and dst spatial sizes */
    int64_t pad_h, pad_w;           /* src row of dst row 0 is -pad_h */
    int64_t sn, sc, sh, sw;         /* src strides */
    int64_t dn, dc, dh, dw;         /* dst strides */
    int64_t src_goff, dst_goff;     /* channel offset of group g: g * these (in channels) */
    int64_t f0, fo, fi, fr, fs;     /* filter: f0 + o * fo + i * fi + r * fr + s * fs */
    int64_t f_goff;                 /* filter offset of group g: g * f_goff */
    int64_t th, tw, tiles, chunk;   /* tiles per image row / column, in all, per chunk */
} wg_plan_t;

static int wg_plan(const fd_conv_problem_t *p, wg_plan_t *q)
{
    memset(q, 0, sizeof *q);
    q->n = p->n, q->groups = p->groups;
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    if (p->dir != FD_CONV_BWD_DATA) { /* forward, and backward filter: x, dy (as y), dw (as w) */
        q->ci = cg, q->co = kg;
        q->ih = p->in[1], q->iw = p->in[2], q->oh = p->out[1], q->ow = p->out[2];
        q->pad_h = p->pad[1], q->pad_w = p->pad[2];
        q->sn = p->xs[0], q->sc = p->xs[1], q->sh = p->xs[3], q->sw = p->xs[4];
        q->dn = p->ys[0], q->dc = p->ys[1], q->dh = p->ys[3], q->dw = p->ys[4];
        q->src_goff = cg, q->dst_goff = kg;
        q->fo = p->ws[0], q->fi = p->ws[1], q->fr = p->ws[3], q->fs = p->ws[4];
        if (!p->cross_correlation) /* CUDNN_CONVOLUTION reads the filter reversed */
            q->f0 = 2 * q->fr + 2 * q->fs, q->fr = -q->fr, q->fs = -q->fs;
    } else {
        q->ci = kg, q->co = cg;
        q->ih = p->out[1], q->iw = p->out[2], q->oh = p->in[1], q->ow = p->in[2];
        q->pad_h = 2 - p->pad[1], q->pad_w = 2 - p->pad[2];
        q->sn = p->ys[0], q->sc = p->ys[1], q->sh = p->ys[3], q->sw = p->ys[4];
        q->dn = p->xs[0], q->dc = p->xs[1], q->dh = p->xs[3], q->dw = p->xs[4];
        q->src_goff = kg, q->dst_goff = cg;
        q->fo = p->ws[1], q->fi = p->ws[0], q->fr = p->ws[3], q->fs = p->ws[4];
        if (p->cross_correlation) /* the adjoint of a correlation correlates with w rotated */
            q->f0 = 2 * q->fr + 2 * q->fs, q->fr = -q->fr, q->fs = -q->fs;
    }
    q->f_goff = kg * p->ws[0];
    q->th = (q->oh + WG_M - 1) / WG_M, q->tw = (q->ow + WG_M - 1) / WG_M;
    q->tiles = q->n * q->th * q->tw;
    int64_t per_tile = WG_X * (q->ci + q->co);
    q->chunk = WG_CHUNK_FLOATS / per_tile;
    if (q->chunk < 64)
        q->chunk = 64;
    /* FREEDNN_CPU_WINOGRAD_CHUNK=<tiles>: a tuning knob, and the tests' way to cut chunks
     * inside tile rows without channels by the thousand */
    q->chunk = fd_env_long("FREEDNN_CPU_WINOGRAD_CHUNK", 1, INT_MAX, (long)q->chunk);
    if (q->chunk > q->tiles)
        q->chunk = q->tiles;
    return q->ci <= INT_MAX && q->co <= INT_MAX && q->chunk <= INT_MAX;
}

static int64_t wg_round(int64_t floats)
{
    return (floats + 15) / 16 * 16; /* 64 bytes */
}

static int64_t wg_u_floats(const wg_plan_t *q)
{
    return wg_round(WG_X * q->co * q->ci);
}
static int64_t wg_v_floats(const wg_plan_t *q)
{
    return wg_round(WG_X * q->ci * q->chunk);
}
static int64_t wg_m_floats(const wg_plan_t *q)
{
    return wg_round(WG_X * q->co * q->chunk);
}

/* ---- transforms ---------------------------------------------------------------------------- */

/* out[j * os] = (G g)[j] for one column g of 3 (multiplications by the reciprocals: a
 * division per term made the filter transform cost more than the GEMMs). */
static inline void g_column(double g0, double g1, double g2, double *out, int os)
{
    const double sixth = 1.0 / 6.0, twelfth = 1.0 / 12.0, t24 = 1.0 / 24.0;
    double s02 = g0 + g2;
    out[0] = 0.25 * g0;
    out[os] = -sixth * (s02 + g1);
    out[2 * os] = -sixth * (s02 - g1);
    double e = t24 * g0 + sixth * g2, o = twelfth * g1;
    out[3 * os] = e + o;
    out[4 * os] = e - o;
    out[5 * os] = g2;
}

/* U[xi][o][i] = (G g G^T)[xi] for every o, i of group g (double, rounded once). Pairs are
 * transformed in blocks of FD_WG_FBLK into a local buffer and then copied out as 36
 * contiguous runs: storing each result straight to its xi plane (36 streams a plane apart)
 * ran at ~1 GB/s and cost more than the GEMMs for 512 x 512 filters. */
#define FD_WG_FBLK 64
static void filter_transform(const wg_plan_t *q, const float *w, int64_t g, float *u)
{
    const int64_t plane = q->co * q->ci, blocks = (plane + FD_WG_FBLK - 1) / FD_WG_FBLK;
#pragma omp parallel for schedule(static) if (blocks >= 4)
    for (int64_t blk = 0; blk < blocks; blk++) {
        float buf[WG_X][FD_WG_FBLK];
        const int64_t b0 = blk * FD_WG_FBLK;
        const int64_t nb = plane - b0 < FD_WG_FBLK ? plane - b0 : FD_WG_FBLK;
        for (int64_t j = 0; j < nb; j++) {
            const int64_t oi = b0 + j, o = oi / q->ci, i = oi % q->ci;
            const float *f = w + g * q->f_goff + q->f0 + o * q->fo + i * q->fi;
            double t[WG_T][3];
            for (int s = 0; s < 3; s++) /* t = G g */
                g_column(f[s * q->fs], f[q->fr + s * q->fs], f[2 * q->fr + s * q->fs], t[0] + s, 3);
            for (int a = 0; a < WG_T; a++) { /* U = t G^T */
                double v[WG_T];
                g_column(t[a][0], t[a][1], t[a][2], v, 1);
                for (int b = 0; b < WG_T; b++)
                    buf[a * WG_T + b][j] = (float)v[b];
            }
        }
        for (int x = 0; x < WG_X; x++)
            memcpy(u + x * plane + b0, buf[x], sizeof(float) * (size_t)nb);
    }
}

/* out = B^T in, for one column of 6 (stride 1 in `in`, `os` in `out`). */
static inline void bt6(const float *in, int is, float *out, int os)
{
    float d0 = in[0], d1 = in[is], d2 = in[2 * is], d3 = in[3 * is], d4 = in[4 * is],
          d5 = in[5 * is];
    out[0] = 4.0f * d0 - 5.0f * d2 + d4;
    out[os] = -4.0f * d1 - 4.0f * d2 + d3 + d4;
    out[2 * os] = 4.0f * d1 - 4.0f * d2 - d3 + d4;
    out[3 * os] = -2.0f * d1 - d2 + 2.0f * d3 + d4;
    out[4 * os] = 2.0f * d1 - d2 - 2.0f * d3 + d4;
    out[5 * os] = 4.0f * d1 - 5.0f * d3 + d5;
}

/* V[xi][i][t - t0] for tiles t0 .. t0 + nb of group g. */
static void input_transform(const wg_plan_t *q, const float *src, int64_t g, int64_t t0,
                            int64_t nb, float *v)
{
    const int64_t per_img = q->th * q->tw, xstride = q->ci * q->chunk;
#pragma omp parallel for schedule(static) if (q->ci * nb >= 64)
    for (int64_t i = 0; i < q->ci; i++) {
        float d[WG_T * WG_T], tmp[WG_T * WG_T], out[WG_T * WG_T];
        float *vi = v + i * q->chunk;
        for (int64_t tt = 0; tt < nb; tt++) {
            const int64_t t = t0 + tt, img = t / per_img, rem = t % per_img;
            const int64_t h0 = (rem / q->tw) * WG_M - q->pad_h, w0 = (rem % q->tw) * WG_M - q->pad_w;
            const float *base = src + img * q->sn + (g * q->src_goff + i) * q->sc;
            if (h0 >= 0 && w0 >= 0 && h0 + WG_T <= q->ih && w0 + WG_T <= q->iw) {
                for (int a = 0; a < WG_T; a++)
                    for (int b = 0; b < WG_T; b++)
                        d[a * WG_T + b] = base[(h0 + a) * q->sh + (w0 + b) * q->sw];
            } else {
                for (int a = 0; a < WG_T; a++)
                    for (int b = 0; b < WG_T; b++) {
                        int64_t hh = h0 + a, ww = w0 + b;
                        d[a * WG_T + b] = hh >= 0 && hh < q->ih && ww >= 0 && ww < q->iw
                                              ? base[hh * q->sh + ww * q->sw]
                                              : 0.0f;
                    }
            }
            for (int b = 0; b < WG_T; b++) /* columns: tmp = B^T d */
                bt6(d + b, WG_T, tmp + b, WG_T);
            for (int a = 0; a < WG_T; a++) /* rows: out = tmp B */
                bt6(tmp + a * WG_T, 1, out + a * WG_T, 1);
            for (int x = 0; x < WG_X; x++)
                vi[x * xstride + tt] = out[x];
        }
    }
}

/* out = A^T in for one column of 6 -> 4. */
static inline void at4(const float *in, int is, float *out, int os)
{
    float m0 = in[0], m1 = in[is], m2 = in[2 * is], m3 = in[3 * is], m4 = in[4 * is],
          m5 = in[5 * is];
    float s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4;
    out[0] = m0 + s12 + s34;
    out[os] = d12 + 2.0f * d34;
    out[2 * os] = s12 + 4.0f * s34;
    out[3 * os] = d12 + 8.0f * d34 + m5;
}

/* dst of tiles t0 .. t0 + nb, group g = alpha * A^T M A + beta * dst (rounded once, as the
 * ref blends; beta == 0 never reads dst). */
static void output_transform(const wg_plan_t *q, const float *m, int64_t g, int64_t t0, int64_t nb,
                             float *dst, double alpha, double beta)
{
    const int64_t per_img = q->th * q->tw, xstride = q->co * q->chunk;
#pragma omp parallel for schedule(static) if (q->co * nb >= 64)
    for (int64_t o = 0; o < q->co; o++) {
        float in[WG_X], tmp[WG_M * WG_T], out[WG_M * WG_M];
        const float *mo = m + o * q->chunk;
        for (int64_t tt = 0; tt < nb; tt++) {
            for (int x = 0; x < WG_X; x++)
                in[x] = mo[x * xstride + tt];
            for (int b = 0; b < WG_T; b++) /* tmp (4 x 6) = A^T in */
                at4(in + b, WG_T, tmp + b, WG_T);
            for (int a = 0; a < WG_M; a++) /* out (4 x 4) = tmp A */
                at4(tmp + a * WG_T, 1, out + a * WG_M, 1);
            const int64_t t = t0 + tt, img = t / per_img, rem = t % per_img;
            const int64_t h0 = (rem / q->tw) * WG_M, w0 = (rem % q->tw) * WG_M;
            float *base = dst + img * q->dn + (g * q->dst_goff + o) * q->dc;
            const int hn = (int)(q->oh - h0 < WG_M ? q->oh - h0 : WG_M);
            const int wn = (int)(q->ow - w0 < WG_M ? q->ow - w0 : WG_M);
            for (int a = 0; a < hn; a++)
                for (int b = 0; b < wn; b++) {
                    float *y = base + (h0 + a) * q->dh + (w0 + b) * q->dw;
                    double val = alpha * (double)out[a * WG_M + b];
                    if (beta != 0.0)
                        val += beta * (double)*y;
                    *y = (float)val;
                }
        }
    }
}

/* ---- backward filter -----------------------------------------------------------------------
 * dw = sum over tiles of G^T [ (A dy A^T) (.) (B^T d B) ] G: the same trilinear form as the
 * forward's y = A^T [ (G w G^T) (.) (B^T d B) ] A, differentiated by w (A^T: the 4 x 6 output
 * transform, at4; A maps a 4 x 4 tile of dy to 6 x 6). Per tile the input transform is the
 * forward's; dy's 4 x 4 tile (zero beyond dy) goes through A; the 36 GEMMs
 * Macc[xi] (co x ci) += E[xi] (co x tiles) V[xi]^T (tiles x ci) run over the tiles of all images,
 * chunk after chunk (beta 1 after the first); then each (o, i) pair's 6 x 6 sums go through G^T . G
 * (6 x 6 -> 3 x 3) in double, blended with alpha / beta and rounded once into dw. */

/* out = A in for one column of 4 -> 6 (the transpose of at4's matrix). */
static inline void a6(const float *in, int is, float *out, int os)
{
    float u0 = in[0], u1 = in[is], u2 = in[2 * is], u3 = in[3 * is];
    out[0] = u0;
    out[os] = u0 + u1 + u2 + u3;
    out[2 * os] = u0 - u1 + u2 - u3;
    out[3 * os] = u0 + 2.0f * u1 + 4.0f * u2 + 8.0f * u3;
    out[4 * os] = u0 - 2.0f * u1 + 4.0f * u2 - 8.0f * u3;
    out[5 * os] = u3;
}

/* E[xi][o][t - t0] = (A dy A^T)[xi] for tiles t0 .. t0 + nb of group g (dy: the plan's dst). */
static void dy_transform(const wg_plan_t *q, const float *dy, int64_t g, int64_t t0, int64_t nb,
                         float *e)
{
    const int64_t per_img = q->th * q->tw, xstride = q->co * q->chunk;
#pragma omp parallel for schedule(static) if (q->co * nb >= 64)
    for (int64_t o = 0; o < q->co; o++) {
        float d[WG_M * WG_M], tmp[WG_T * WG_M], out[WG_X];
        float *eo = e + o * q->chunk;
        for (int64_t tt = 0; tt < nb; tt++) {
            const int64_t t = t0 + tt, img = t / per_img, rem = t % per_img;
            const int64_t h0 = (rem / q->tw) * WG_M, w0 = (rem % q->tw) * WG_M;
            const float *base = dy + img * q->dn + (g * q->dst_goff + o) * q->dc;
            for (int a = 0; a < WG_M; a++)
                for (int b = 0; b < WG_M; b++)
                    d[a * WG_M + b] = h0 + a < q->oh && w0 + b < q->ow
                                          ? base[(h0 + a) * q->dh + (w0 + b) * q->dw]
                                          : 0.0f;
            for (int b = 0; b < WG_M; b++) /* columns: tmp (6 x 4) = A d */
                a6(d + b, WG_M, tmp + b, WG_M);
            for (int a = 0; a < WG_T; a++) /* rows: out (6 x 6) = tmp A^T */
                a6(tmp + a * WG_M, 1, out + a * WG_T, 1);
            for (int x = 0; x < WG_X; x++)
                eo[x * xstride + tt] = out[x];
        }
    }
}

/* out[j * os] = (G^T m)[j] for one column of 6 -> 3, in double. */
static inline void gt3(const double *m, int is, double *out, int os)
{
    const double sixth = 1.0 / 6.0, twelfth = 1.0 / 12.0, t24 = 1.0 / 24.0;
    const double s12 = m[is] + m[2 * is], s34 = m[3 * is] + m[4 * is];
    out[0] = 0.25 * m[0] - sixth * s12 + t24 * s34;
    out[os] = sixth * (m[2 * is] - m[is]) + twelfth * (m[3 * is] - m[4 * is]);
    out[2 * os] = sixth * (s34 - s12) + m[5 * is];
}

/* dw of group g = alpha * G^T Macc G + beta * dw, per (o, i) (double, rounded once; beta == 0
 * never reads dw). */
static void filter_gradient(const wg_plan_t *q, const float *macc, int64_t g, float *dw,
                            double alpha, double beta)
{
    const int64_t plane = q->co * q->ci;
#pragma omp parallel for schedule(static) if (plane >= 256)
    for (int64_t o = 0; o < q->co; o++)
        for (int64_t i = 0; i < q->ci; i++) {
            double m[WG_X], t[3 * WG_T], r[9];
            for (int x = 0; x < WG_X; x++)
                m[x] = (double)macc[x * plane + o * q->ci + i];
            for (int b = 0; b < WG_T; b++) /* t (3 x 6) = G^T m */
                gt3(m + b, WG_T, t + b, WG_T);
            for (int a = 0; a < 3; a++) /* r (3 x 3) = t G */
                gt3(t + a * WG_T, 1, r + a * 3, 1);
            float *f = dw + g * q->f_goff + q->f0 + o * q->fo + i * q->fi;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    float *y = f + a * q->fr + b * q->fs;
                    double val = alpha * r[a * 3 + b];
                    if (beta != 0.0)
                        val += beta * (double)*y;
                    *y = (float)val;
                }
        }
}

/* ---- the transforms on AVX-512 -----------------------------------------------------------
 * The same arithmetic as the scalar transforms above, operation for operation (the build's ISO C
 * mode contracts nothing into FMAs), 16 tiles or 16 (o, i) pairs a vector, so the bits are the
 * scalar path's (tests/impl/test_cpu_conv_winograd.c compares the two under FREEDNN_CPU_ISA).
 * - Input: per channel and tile row, 16 tiles at a time: the six x rows the tiles read (66
 *   columns, zero outside x, masked loads) get B^T down the columns, 16 columns a vector; the
 *   columns 4 j + b (b = 0 .. 5) of each result row are then gathered into vectors whose lane is
 *   the tile j (three permutes for b < 4 and 64 columns, one for 32 or fewer; b = 4, 5 are b =
 *   0, 1 shifted by one tile), and B goes across them. The 36 results are vectors of V[x][i],
 *   whose tiles are consecutive.
 * - Output: per output channel and tile row, the 36 vectors of M[x][o] for 16 tiles, A^T . A in
 *   registers, and the 4 x 4 results put back in column order (two permutes and a blend per 16
 *   columns) before each output row is stored, masked to the row's width.
 * - Filter: 16 input channels of one output channel at a time, the nine taps gathered, the
 *   transform in double as above (two vectors of 8), rounded once, stored as 36 vectors.
 * The scalar forms serve other strides (x or y not contiguous along W) and CPUs without AVX-512F.
 * Measured on ResNet-50's 3x3 stride-1 layers at N = 1 (one core, the Intel VM, 2026-12-06):
 * see docs/perf/cpu-winograd-2026-12-06.md. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WG_AVX512 1

#define WG_TARGET __attribute__((target("avx512f")))
#define WG_INLINE static inline __attribute__((always_inline, target("avx512f")))

/* bt6 on vectors: o[k] = (B^T d)[k] for d[0 .. 5], the scalar bt6's expressions. */
WG_INLINE void bt6v(const __m512 d[WG_T], __m512 o[WG_T])
{
    const __m512 c4 = _mm512_set1_ps(4.0f), c5 = _mm512_set1_ps(5.0f), c2 = _mm512_set1_ps(2.0f);
    const __m512 m4 = _mm512_set1_ps(-4.0f), m2 = _mm512_set1_ps(-2.0f);
    o[0] = _mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(c4, d[0]), _mm512_mul_ps(c5, d[2])), d[4]);
    o[1] = _mm512_add_ps(
        _mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(m4, d[1]), _mm512_mul_ps(c4, d[2])), d[3]), d[4]);
    o[2] = _mm512_add_ps(
        _mm512_sub_ps(_mm512_sub_ps(_mm512_mul_ps(c4, d[1]), _mm512_mul_ps(c4, d[2])), d[3]), d[4]);
    o[3] = _mm512_add_ps(
        _mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(m2, d[1]), d[2]), _mm512_mul_ps(c2, d[3])), d[4]);
    o[4] = _mm512_add_ps(
        _mm512_sub_ps(_mm512_sub_ps(_mm512_mul_ps(c2, d[1]), d[2]), _mm512_mul_ps(c2, d[3])), d[4]);
    o[5] = _mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(c4, d[1]), _mm512_mul_ps(c5, d[3])), d[5]);
}

/* at4 on vectors: o[k] = (A^T m)[k] for m[0 .. 5], the scalar at4's expressions. */
WG_INLINE void at4v(const __m512 m[WG_T], __m512 o[WG_M])
{
    const __m512 s12 = _mm512_add_ps(m[1], m[2]), d12 = _mm512_sub_ps(m[1], m[2]);
    const __m512 s34 = _mm512_add_ps(m[3], m[4]), d34 = _mm512_sub_ps(m[3], m[4]);
    o[0] = _mm512_add_ps(_mm512_add_ps(m[0], s12), s34);
    o[1] = _mm512_add_ps(d12, _mm512_mul_ps(_mm512_set1_ps(2.0f), d34));
    o[2] = _mm512_add_ps(s12, _mm512_mul_ps(_mm512_set1_ps(4.0f), s34));
    o[3] = _mm512_add_ps(_mm512_add_ps(d12, _mm512_mul_ps(_mm512_set1_ps(8.0f), d34)), m[5]);
}

/* e[b] lane j = row[4 j + b] (b = 0 .. 5, j < 16) for a row held as 5 vectors (80 columns); with
 * `narrow` only j < 8 matter and the row's first 32 columns are read. */
WG_INLINE void wg_deal(const __m512 row[5], __m512 e[WG_T], int narrow)
{
    for (int b = 0; b < 4; b++) {
        const __m512i idx = _mm512_add_epi32(
            _mm512_set_epi32(60, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0),
            _mm512_set1_epi32(b));
        const __m512 lo = _mm512_permutex2var_ps(row[0], idx, row[1]); /* lanes 0 .. 7 */
        if (narrow) {
            e[b] = lo;
            continue;
        }
        const __m512 hi = _mm512_permutex2var_ps(row[2], idx, row[3]);
        e[b] = _mm512_shuffle_f32x4(lo, hi, 0x44);
    }
    const __m512i tail = _mm512_castps_si512(row[4]);
    const __m512i e0 = _mm512_castps_si512(e[0]), e1 = _mm512_castps_si512(e[1]);
    e[4] = _mm512_castsi512_ps(_mm512_alignr_epi32(tail, e0, 1));
    e[5] = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_alignr_epi32(tail, tail, 1), e1, 1));
}

/* V for tiles t0 .. t0 + nb of group g (x W-contiguous: q->sw == 1). */
static WG_TARGET void input_transform_v(const wg_plan_t *q, const float *src, int64_t g, int64_t t0,
                                        int64_t nb, float *v)
{
    const int64_t xstride = q->ci * q->chunk;
    const int64_t r0 = t0 / q->tw, r1 = (t0 + nb + q->tw - 1) / q->tw;
#pragma omp parallel for schedule(static) if (q->ci * nb >= 64)
    for (int64_t i = 0; i < q->ci; i++) {
        float *vi = v + i * q->chunk;
        for (int64_t rr = r0; rr < r1; rr++) { /* tile rows, numbered over all images */
            const int64_t img = rr / q->th, h0 = (rr % q->th) * WG_M - q->pad_h;
            const float *base = src + img * q->sn + (g * q->src_goff + i) * q->sc;
            const int64_t jlo = t0 > rr * q->tw ? t0 - rr * q->tw : 0;
            const int64_t jhi = t0 + nb < (rr + 1) * q->tw ? t0 + nb - rr * q->tw : q->tw;
            for (int64_t j0 = jlo; j0 < jhi; j0 += 16) {
                const int64_t jn = jhi - j0 < 16 ? jhi - j0 : 16;
                const int narrow = jn <= 7;
                const int64_t c0 = j0 * WG_M - q->pad_w; /* x column of the tiles' column 0 */
                __m512 t[WG_T][5];
                {
                    __m512 d[WG_T][5];
                    for (int a = 0; a < WG_T; a++) {
                        const int64_t hh = h0 + a;
                        for (int k = 0; k < 5; k++) {
                            const int64_t cc = c0 + 16 * k;
                            __mmask16 m = 0;
                            if (hh >= 0 && hh < q->ih && !(narrow && k >= 2)) {
                                const int64_t lo = cc < 0 ? -cc : 0;
                                const int64_t hi = q->iw - cc > 16 ? 16 : q->iw - cc;
                                if (hi > lo)
                                    m = (__mmask16)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
                            }
                            d[a][k] = _mm512_maskz_loadu_ps(m, base + hh * q->sh + cc);
                        }
                    }
                    for (int k = 0; k < 5; k++) { /* columns: t = B^T d */
                        __m512 col[WG_T], out[WG_T];
                        for (int a = 0; a < WG_T; a++)
                            col[a] = d[a][k];
                        bt6v(col, out);
                        for (int a = 0; a < WG_T; a++)
                            t[a][k] = out[a];
                    }
                }
                const __mmask16 lanes = (__mmask16)((1u << jn) - 1u);
                float *dst = vi + rr * q->tw + j0 - t0;
                for (int a = 0; a < WG_T; a++) { /* rows: out = t B, lane = tile */
                    __m512 e[WG_T], out[WG_T];
                    wg_deal(t[a], e, narrow);
                    bt6v(e, out);
                    for (int b = 0; b < WG_T; b++)
                        _mm512_mask_storeu_ps(dst + (a * WG_T + b) * xstride, lanes, out[b]);
                }
            }
        }
    }
}

/* dst of tiles t0 .. t0 + nb, group g (dst W-contiguous: q->dw == 1), as output_transform. */
static WG_TARGET void output_transform_v(const wg_plan_t *q, const float *m, int64_t g, int64_t t0,
                                         int64_t nb, float *dst, double alpha, double beta)
{
    const int64_t xstride = q->co * q->chunk;
    const int64_t r0 = t0 / q->tw, r1 = (t0 + nb + q->tw - 1) / q->tw;
    const int plain = alpha == 1.0 && beta == 0.0;
    /* R_k lane l = out[l % 4] lane 4 k + l / 4: from (out0, out1) and (out2, out3) by the same
     * index, then blended on the lanes l % 4 >= 2 */
    __m512i idx[4];
    for (int k = 0; k < 4; k++) {
        int32_t ix[16];
        for (int l = 0; l < 16; l++)
            ix[l] = (l % 2) * 16 + 4 * k + l / 4;
        idx[k] = _mm512_loadu_si512(ix);
    }
#pragma omp parallel for schedule(static) if (q->co * nb >= 64)
    for (int64_t o = 0; o < q->co; o++) {
        const float *mo = m + o * q->chunk;
        for (int64_t rr = r0; rr < r1; rr++) {
            const int64_t img = rr / q->th, h0 = (rr % q->th) * WG_M;
            float *base = dst + img * q->dn + (g * q->dst_goff + o) * q->dc;
            const int64_t jlo = t0 > rr * q->tw ? t0 - rr * q->tw : 0;
            const int64_t jhi = t0 + nb < (rr + 1) * q->tw ? t0 + nb - rr * q->tw : q->tw;
            for (int64_t j0 = jlo; j0 < jhi; j0 += 16) {
                const int64_t jn = jhi - j0 < 16 ? jhi - j0 : 16;
                const __mmask16 lanes = (__mmask16)((1u << jn) - 1u);
                const float *src = mo + rr * q->tw + j0 - t0;
                __m512 tmp[WG_M][WG_T];
                for (int b = 0; b < WG_T; b++) { /* tmp (4 x 6) = A^T in */
                    __m512 in[WG_T], out[WG_M];
                    for (int a = 0; a < WG_T; a++)
                        in[a] = _mm512_maskz_loadu_ps(lanes, src + (a * WG_T + b) * xstride);
                    at4v(in, out);
                    for (int a = 0; a < WG_M; a++)
                        tmp[a][b] = out[a];
                }
                const int64_t cbase = j0 * WG_M,
                              cn = q->ow - cbase < jn * WG_M ? q->ow - cbase : jn * WG_M;
                for (int a = 0; a < WG_M && h0 + a < q->oh; a++) {
                    __m512 out[WG_M];
                    at4v(tmp[a], out); /* out[b] lane j: y[h0 + a][4 (j0 + j) + b] */
                    float *yr = base + (h0 + a) * q->dh + cbase;
                    for (int k = 0; k * 16 < cn; k++) {
                        const __m512 p01 = _mm512_permutex2var_ps(out[0], idx[k], out[1]);
                        const __m512 p23 = _mm512_permutex2var_ps(out[2], idx[k], out[3]);
                        __m512 r = _mm512_mask_blend_ps((__mmask16)0xCCCC, p01, p23);
                        const int64_t left = cn - 16 * k;
                        const __mmask16 mk = (__mmask16)(left >= 16 ? 0xFFFFu : (1u << left) - 1u);
                        float *yk = yr + 16 * k;
                        if (!plain) { /* alpha * r + beta * y in double, rounded once */
                            const __m512d al = _mm512_set1_pd(alpha), be = _mm512_set1_pd(beta);
                            __m512d lo =
                                _mm512_mul_pd(al, _mm512_cvtps_pd(_mm512_castps512_ps256(r)));
                            __m512d hi = _mm512_mul_pd(
                                al, _mm512_cvtps_pd(_mm256_castpd_ps(
                                        _mm512_extractf64x4_pd(_mm512_castps_pd(r), 1))));
                            if (beta != 0.0) {
                                const __m512 y = _mm512_maskz_loadu_ps(mk, yk);
                                lo = _mm512_add_pd(
                                    lo,
                                    _mm512_mul_pd(be, _mm512_cvtps_pd(_mm512_castps512_ps256(y))));
                                hi = _mm512_add_pd(
                                    hi,
                                    _mm512_mul_pd(
                                        be, _mm512_cvtps_pd(_mm256_castpd_ps(
                                                _mm512_extractf64x4_pd(_mm512_castps_pd(y), 1)))));
                            }
                            r = _mm512_castpd_ps(_mm512_insertf64x4(
                                _mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo))),
                                _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
                        }
                        _mm512_mask_storeu_ps(yk, mk, r);
                    }
                }
            }
        }
    }
}

/* g_column on vectors of 8 doubles, the scalar g_column's expressions. */
WG_INLINE void g_column_v(__m512d g0, __m512d g1, __m512d g2, __m512d out[WG_T])
{
    const __m512d sixth = _mm512_set1_pd(1.0 / 6.0), msixth = _mm512_set1_pd(-(1.0 / 6.0));
    const __m512d twelfth = _mm512_set1_pd(1.0 / 12.0), t24 = _mm512_set1_pd(1.0 / 24.0);
    const __m512d s02 = _mm512_add_pd(g0, g2);
    out[0] = _mm512_mul_pd(_mm512_set1_pd(0.25), g0);
    out[1] = _mm512_mul_pd(msixth, _mm512_add_pd(s02, g1));
    out[2] = _mm512_mul_pd(msixth, _mm512_sub_pd(s02, g1));
    const __m512d e = _mm512_add_pd(_mm512_mul_pd(t24, g0), _mm512_mul_pd(sixth, g2));
    const __m512d o = _mm512_mul_pd(twelfth, g1);
    out[3] = _mm512_add_pd(e, o);
    out[4] = _mm512_sub_pd(e, o);
    out[5] = g2;
}

/* U of group g as filter_transform, 16 input channels of one output channel at a time. */
static WG_TARGET void filter_transform_v(const wg_plan_t *q, const float *w, int64_t g, float *u)
{
    const int64_t plane = q->co * q->ci, ib = (q->ci + 15) / 16, blocks = q->co * ib;
    const __m512i lane =
        _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                           _mm512_set1_epi32((int32_t)q->fi));
#pragma omp parallel for schedule(static) if (blocks >= 4)
    for (int64_t blk = 0; blk < blocks; blk++) {
        const int64_t o = blk / ib, i0 = blk % ib * 16, in = q->ci - i0 < 16 ? q->ci - i0 : 16;
        const __mmask16 m = (__mmask16)(in == 16 ? 0xFFFFu : (1u << in) - 1u);
        const float *f = w + g * q->f_goff + q->f0 + o * q->fo + i0 * q->fi;
        __m512d t[2][WG_T][3];        /* [half][row of G g][column s] */
        for (int s = 0; s < 3; s++) { /* t = G g */
            __m512 gv[3];
            for (int r = 0; r < 3; r++)
                gv[r] = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, lane,
                                                 f + r * q->fr + s * q->fs, 4);
            for (int h = 0; h < 2; h++) {
                __m512d gd[3], out[WG_T];
                for (int r = 0; r < 3; r++)
                    gd[r] = _mm512_cvtps_pd(
                        h ? _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(gv[r]), 1))
                          : _mm512_castps512_ps256(gv[r]));
                g_column_v(gd[0], gd[1], gd[2], out);
                for (int a = 0; a < WG_T; a++)
                    t[h][a][s] = out[a];
            }
        }
        float *dst = u + o * q->ci + i0;
        for (int a = 0; a < WG_T; a++) { /* U = t G^T */
            __m512d v[2][WG_T];
            for (int h = 0; h < 2; h++)
                g_column_v(t[h][a][0], t[h][a][1], t[h][a][2], v[h]);
            for (int b = 0; b < WG_T; b++) {
                const __m512 r = _mm512_castpd_ps(_mm512_insertf64x4(
                    _mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(v[0][b]))),
                    _mm256_castps_pd(_mm512_cvtpd_ps(v[1][b])), 1));
                _mm512_mask_storeu_ps(dst + (a * WG_T + b) * plane, m, r);
            }
        }
    }
}

/* a6 on vectors: o[k] = (A u)[k] for u[0 .. 3], the scalar a6's expressions. */
WG_INLINE void a6v(const __m512 u[WG_M], __m512 o[WG_T])
{
    const __m512 c2 = _mm512_set1_ps(2.0f), c4 = _mm512_set1_ps(4.0f), c8 = _mm512_set1_ps(8.0f);
    o[0] = u[0];
    o[1] = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(u[0], u[1]), u[2]), u[3]);
    o[2] = _mm512_sub_ps(_mm512_add_ps(_mm512_sub_ps(u[0], u[1]), u[2]), u[3]);
    o[3] = _mm512_add_ps(
        _mm512_add_ps(_mm512_add_ps(u[0], _mm512_mul_ps(c2, u[1])), _mm512_mul_ps(c4, u[2])),
        _mm512_mul_ps(c8, u[3]));
    o[4] = _mm512_sub_ps(
        _mm512_add_ps(_mm512_sub_ps(u[0], _mm512_mul_ps(c2, u[1])), _mm512_mul_ps(c4, u[2])),
        _mm512_mul_ps(c8, u[3]));
    o[5] = u[3];
}

/* dy_transform for dy W-contiguous (q->dw == 1): per output channel and tile row, 16 tiles a
 * vector; dy's four rows (64 columns, zero beyond dy) dealt by column % 4 into vectors of tiles
 * (wg_deal), then A down and across. */
static WG_TARGET void dy_transform_v(const wg_plan_t *q, const float *dy, int64_t g, int64_t t0,
                                     int64_t nb, float *e)
{
    const int64_t xstride = q->co * q->chunk;
    const int64_t r0 = t0 / q->tw, r1 = (t0 + nb + q->tw - 1) / q->tw;
#pragma omp parallel for schedule(static) if (q->co * nb >= 64)
    for (int64_t o = 0; o < q->co; o++) {
        float *eo = e + o * q->chunk;
        for (int64_t rr = r0; rr < r1; rr++) {
            const int64_t img = rr / q->th, h0 = (rr % q->th) * WG_M;
            const float *base = dy + img * q->dn + (g * q->dst_goff + o) * q->dc;
            const int64_t jlo = t0 > rr * q->tw ? t0 - rr * q->tw : 0;
            const int64_t jhi = t0 + nb < (rr + 1) * q->tw ? t0 + nb - rr * q->tw : q->tw;
            for (int64_t j0 = jlo; j0 < jhi; j0 += 16) {
                const int64_t jn = jhi - j0 < 16 ? jhi - j0 : 16;
                const int narrow = jn <= 8;
                const int64_t c0 = j0 * WG_M;
                __m512 d[WG_M][WG_T]; /* [row][column % 4] (4, 5: unused) */
                for (int a = 0; a < WG_M; a++) {
                    const int64_t hh = h0 + a;
                    __m512 row[5];
                    for (int k = 0; k < 5; k++) {
                        const int64_t cc = c0 + 16 * k;
                        __mmask16 m = 0;
                        if (hh < q->oh && k < (narrow ? 2 : 4) && cc < q->ow)
                            m = (__mmask16)(q->ow - cc >= 16 ? 0xFFFFu : (1u << (q->ow - cc)) - 1u);
                        row[k] = _mm512_maskz_loadu_ps(m, base + hh * q->dh + cc);
                    }
                    wg_deal(row, d[a], narrow);
                }
                __m512 tmp[WG_T][WG_M];
                for (int b = 0; b < WG_M; b++) { /* columns: tmp (6 x 4) = A d */
                    __m512 u[WG_M], out[WG_T];
                    for (int a = 0; a < WG_M; a++)
                        u[a] = d[a][b];
                    a6v(u, out);
                    for (int a = 0; a < WG_T; a++)
                        tmp[a][b] = out[a];
                }
                const __mmask16 lanes = (__mmask16)((1u << jn) - 1u);
                float *dst = eo + rr * q->tw + j0 - t0;
                for (int a = 0; a < WG_T; a++) { /* rows: out = tmp A^T, lane = tile */
                    __m512 out[WG_T];
                    a6v(tmp[a], out);
                    for (int b = 0; b < WG_T; b++)
                        _mm512_mask_storeu_ps(dst + (a * WG_T + b) * xstride, lanes, out[b]);
                }
            }
        }
    }
}

/* gt3 on vectors of 8 doubles: o[k] = (G^T m)[k] for m[0 .. 5], the scalar gt3's expressions. */
WG_INLINE void gt3v(const __m512d m[WG_T], __m512d o[3])
{
    const __m512d sixth = _mm512_set1_pd(1.0 / 6.0), twelfth = _mm512_set1_pd(1.0 / 12.0);
    const __m512d t24 = _mm512_set1_pd(1.0 / 24.0);
    const __m512d s12 = _mm512_add_pd(m[1], m[2]), s34 = _mm512_add_pd(m[3], m[4]);
    o[0] = _mm512_add_pd(
        _mm512_sub_pd(_mm512_mul_pd(_mm512_set1_pd(0.25), m[0]), _mm512_mul_pd(sixth, s12)),
        _mm512_mul_pd(t24, s34));
    o[1] = _mm512_add_pd(_mm512_mul_pd(sixth, _mm512_sub_pd(m[2], m[1])),
                         _mm512_mul_pd(twelfth, _mm512_sub_pd(m[3], m[4])));
    o[2] = _mm512_add_pd(_mm512_mul_pd(sixth, _mm512_sub_pd(s34, s12)), m[5]);
}

/* filter_gradient with 16 input channels of one output channel at a time (two vectors of 8
 * doubles); the nine results per pair are blended into dw by the scalar loop, as there. */
static WG_TARGET void filter_gradient_v(const wg_plan_t *q, const float *macc, int64_t g, float *dw,
                                        double alpha, double beta)
{
    const int64_t plane = q->co * q->ci, ib = (q->ci + 15) / 16, blocks = q->co * ib;
#pragma omp parallel for schedule(static) if (plane >= 256)
    for (int64_t blk = 0; blk < blocks; blk++) {
        const int64_t o = blk / ib, i0 = blk % ib * 16, in = q->ci - i0 < 16 ? q->ci - i0 : 16;
        const __mmask16 mk = (__mmask16)(in == 16 ? 0xFFFFu : (1u << in) - 1u);
        const float *src = macc + o * q->ci + i0;
        double r[9][16] __attribute__((aligned(64)));
        for (int h = 0; h < 2; h++) {
            __m512d t[3][WG_T];
            for (int b = 0; b < WG_T; b++) { /* t (3 x 6) = G^T m */
                __m512d col[WG_T], out[3];
                for (int a = 0; a < WG_T; a++) {
                    const __m512 v = _mm512_maskz_loadu_ps(mk, src + (a * WG_T + b) * plane);
                    col[a] = _mm512_cvtps_pd(
                        h ? _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))
                          : _mm512_castps512_ps256(v));
                }
                gt3v(col, out);
                for (int a = 0; a < 3; a++)
                    t[a][b] = out[a];
            }
            for (int a = 0; a < 3; a++) { /* r (3 x 3) = t G */
                __m512d out[3];
                gt3v(t[a], out);
                for (int b = 0; b < 3; b++)
                    _mm512_store_pd(&r[a * 3 + b][8 * h], out[b]);
            }
        }
        float *f = dw + g * q->f_goff + q->f0 + o * q->fo + i0 * q->fi;
        for (int64_t l = 0; l < in; l++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    float *y = f + l * q->fi + a * q->fr + b * q->fs;
                    double val = alpha * r[a * 3 + b][l];
                    if (beta != 0.0)
                        val += beta * (double)*y;
                    *y = (float)val;
                }
    }
}
#else
#define WG_AVX512 0
#endif

/* ---- the rows ---------------------------------------------------------------------------- */

static int wg_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, CUDNN_DATA_FLOAT, why, why_size))
        return 0;
    if (p->compute != CUDNN_DATA_FLOAT) {
        snprintf(why, why_size, "accumulates in float; compute type is %s",
                 fd_dtype_name(p->compute));
        return 0;
    }
    if (p->nsp != 2) {
        snprintf(why, why_size, "Winograd F(4x4,3x3) is 2-d only (%d-d problem)", p->nsp);
        return 0;
    }
    if (p->flt[1] != 3 || p->flt[2] != 3) {
        snprintf(why, why_size, "Winograd F(4x4,3x3) needs a 3x3 filter (%lldx%lld)",
                 (long long)p->flt[1], (long long)p->flt[2]);
        return 0;
    }
    if (p->stride[1] != 1 || p->stride[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1) {
        snprintf(why, why_size, "Winograd F(4x4,3x3) needs stride 1 and dilation 1");
        return 0;
    }
    wg_plan_t q;
    if (!wg_plan(p, &q)) {
        snprintf(why, why_size, "a GEMM dimension exceeds int");
        return 0;
    }
    return 1;
}

static size_t wg_workspace(const fd_conv_problem_t *p)
{
    wg_plan_t q;
    wg_plan(p, &q);
    return (size_t)(wg_u_floats(&q) + wg_v_floats(&q) + wg_m_floats(&q)) * sizeof(float);
}

/* The input transform, on AVX-512 where it may run. */
static void wg_input(const wg_plan_t *q, const float *src, int64_t g, int64_t t0, int64_t nb,
                     float *v)
{
#if WG_AVX512
    if (fd_cpu_isa_avx512() && q->sw == 1) {
        input_transform_v(q, src, g, t0, nb, v);
        return;
    }
#endif
    input_transform(q, src, g, t0, nb, v);
}

/* Backward filter (the plan's src is x, its dst dy, its filter dw). */
static cudnnStatus_t wg_run_filter(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    wg_plan_t q;
    wg_plan(p, &q);
    float *macc = a->workspace, *v = macc + wg_u_floats(&q), *e = v + wg_v_floats(&q);
    const int nt = fd_cpu_team_size(), own = fd_cpu_sgemm_own();
    fd_cpu_blas_serial_begin();
    for (int64_t g = 0; g < q.groups; g++) {
        for (int64_t t0 = 0; t0 < q.tiles; t0 += q.chunk) {
            const int64_t nb = q.tiles - t0 < q.chunk ? q.tiles - t0 : q.chunk;
            /* as in wg_run: whole GEMMs on our SGEMM, the shape's pieces on OpenBLAS; the chunks
             * add up in their order, fixed by the shape */
            const int64_t pp = own && nt <= 12 ? 1 : fd_cpu_gemm_parts(q.co, q.ci);
            wg_input(&q, a->x, g, t0, nb, v);
#if WG_AVX512
            if (fd_cpu_isa_avx512() && q.dw == 1)
                dy_transform_v(&q, a->y, g, t0, nb, e);
            else
#endif
                dy_transform(&q, a->y, g, t0, nb, e);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
            for (int64_t it = 0; it < WG_X * pp; it++) {
                const int64_t x = it / pp;
                const int piece = (int)(it % pp);
                fd_cpu_gemm_pieces(piece, piece + 1, (int)pp, CUDNN_DATA_FLOAT, q.co, q.ci, nb, 1.0,
                                   e + x * q.co * q.chunk, q.chunk, 1, v + x * q.ci * q.chunk, 1,
                                   q.chunk, t0 == 0 ? 0.0 : 1.0, macc + x * q.co * q.ci, q.ci, 1);
            }
        }
#if WG_AVX512
        if (fd_cpu_isa_avx512())
            filter_gradient_v(&q, macc, g, a->out, a->alpha, a->beta);
        else
#endif
            filter_gradient(&q, macc, g, a->out, a->alpha, a->beta);
    }
    fd_cpu_blas_serial_end();
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t wg_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    wg_plan_t q;
    wg_plan(p, &q);
    const float *src = p->dir == FD_CONV_FWD ? a->x : a->y;
    float *u = a->workspace, *v = u + wg_u_floats(&q), *m = v + wg_v_floats(&q);
    /* the GEMMs' pieces are fixed by the shape (below): the bits never depend on the thread
     * count */
    const int nt = fd_cpu_team_size(), own = fd_cpu_sgemm_own();
#if WG_AVX512
    const int vec = fd_cpu_isa_avx512();
    const int vec_out = vec && q.dw == 1;
    /* the gathers' offsets (16 lanes of fi) and the filter's reach in int32 */
    const int vec_f = vec && q.fi >= -(INT32_MAX / 16) && q.fi <= INT32_MAX / 16;
#endif
    fd_cpu_blas_serial_begin();
    for (int64_t g = 0; g < q.groups; g++) {
#if WG_AVX512
        if (vec_f)
            filter_transform_v(&q, a->w, g, u);
        else
#endif
            filter_transform(&q, a->w, g, u);
        for (int64_t t0 = 0; t0 < q.tiles; t0 += q.chunk) {
            int64_t nb = q.tiles - t0 < q.chunk ? q.tiles - t0 : q.chunk;
            /* Our AVX-512 SGEMM sums in an order fixed by K, so a GEMM whole or in any pieces has
             * the same bits: whole (one packing of U[x] instead of one per piece) unless the team
             * is too large for 36 items. OpenBLAS's bits depend on the call's shape: there the
             * pieces are fd_cpu_gemm_parts', fixed by the shape whatever the team. */
            const int64_t pp = own && nt <= 12 ? 1 : fd_cpu_gemm_parts(q.co, nb);
            wg_input(&q, src, g, t0, nb, v);
            /* the 36 GEMMs shared among the team, each whole or in pieces fixed by the shape */
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
            for (int64_t it = 0; it < WG_X * pp; it++) {
                const int64_t x = it / pp;
                const int piece = (int)(it % pp);
                fd_cpu_gemm_pieces(piece, piece + 1, (int)pp, CUDNN_DATA_FLOAT, q.co, nb, q.ci, 1.0,
                                   u + x * q.co * q.ci, q.ci, 1, v + x * q.ci * q.chunk, q.chunk, 1,
                                   0.0, m + x * q.co * q.chunk, q.chunk, 1);
            }
#if WG_AVX512
            if (vec_out)
                output_transform_v(&q, m, g, t0, nb, a->out, a->alpha, a->beta);
            else
#endif
                output_transform(&q, m, g, t0, nb, a->out, a->alpha, a->beta);
        }
    }
    fd_cpu_blas_serial_end();
    return CUDNN_STATUS_SUCCESS;
}

/* The three rows' entry points (src/impls.def). */
#define WG_ROW(dir, run)                                                                           \
    int fd_conv_##dir##_winograd_f32_applicable(const fd_conv_problem_t *p, char *why,             \
                                                size_t why_size)                                   \
    {                                                                                              \
        return wg_applicable(p, why, why_size);                                                    \
    }                                                                                              \
    size_t fd_conv_##dir##_winograd_f32_workspace(const fd_conv_problem_t *p)                      \
    {                                                                                              \
        return wg_workspace(p);                                                                    \
    }                                                                                              \
    cudnnStatus_t fd_conv_##dir##_winograd_f32_run(const fd_conv_problem_t *p,                     \
                                                   const fd_conv_args_t *a)                        \
    {                                                                                              \
        return run(p, a);                                                                          \
    }
WG_ROW(fwd, wg_run)
WG_ROW(bwd_data, wg_run)
WG_ROW(bwd_filter, wg_run_filter)
