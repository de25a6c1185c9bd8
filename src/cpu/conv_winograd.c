/* SPDX-License-Identifier: MIT */
/*
 * conv_winograd.c - Winograd F(4x4, 3x3) convolution on the cpu backend: FLOAT forward and
 * backward data, 2-d, 3x3 filters, stride 1, dilation 1, any padding, groups, strides, both
 * modes (src/impls.def: FWD WINOGRAD / WINOGRAD_NONFUSED, BWD_DATA WINOGRAD / WINOGRAD_NONFUSED).
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
 * The filter transform is computed in double and rounded once (it is cheap); input and output
 * transforms are in float. The error of an output follows the size of its whole tile (the
 * transforms mix neighbouring outputs, with constants up to 8), not its own sum|terms|, so the
 * row is held to a normwise bound: 10x the f32 table bound computed with the output tensor's
 * largest K and sum|terms| (docs/testing.md; measured worst 5.8x in
 * tests/impl/test_cpu_conv_winograd.c).
 *
 * Workspace: U for one group (36 * co * ci), then V (36 * ci * TB) and M (36 * co * TB) for
 * one chunk of TB tiles, each 64-byte aligned within the caller's buffer (which we assume
 * 16-byte aligned at least: floats only need 4).
 * Threads: the whole run holds BLAS single-threaded (fd_cpu_blas_serial_begin, gemm.h), so
 * the transforms are OpenMP loops over channels on our team and the GEMMs run on the same team
 * (fd_cpu_gemm_team): one pool, never two fighting. Each thread owns what it writes, and the
 * GEMMs are thread-count independent, so the row is deterministic for any thread count. (The
 * transforms were serial with the pthread OpenBLAS, Debian's, until 2026-12-04: on the 2-vCPU
 * Zen 3 VM the backward data of ResNet-50's 3x3 56x56 layer then took 5.1 ms on two threads,
 * 2.8 on one.)
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"

enum { WG_M = 4, WG_T = 6, WG_X = 36 };

/* Tiles per chunk: as many as keep V and M under ~32 MiB, at least 64 (and at most all). */
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
    if (p->dir == FD_CONV_FWD) {
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

static cudnnStatus_t wg_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    wg_plan_t q;
    wg_plan(p, &q);
    const float *src = p->dir == FD_CONV_FWD ? a->x : a->y;
    float *u = a->workspace, *v = u + wg_u_floats(&q), *m = v + wg_v_floats(&q);
    /* our team splits each of the 36 GEMMs at points fixed by the shape (fd_cpu_gemm_team):
     * the bits never depend on the thread count */
    const int nt = fd_cpu_team_size();
    fd_cpu_blas_serial_begin();
    for (int64_t g = 0; g < q.groups; g++) {
        filter_transform(&q, a->w, g, u);
        for (int64_t t0 = 0; t0 < q.tiles; t0 += q.chunk) {
            int64_t nb = q.tiles - t0 < q.chunk ? q.tiles - t0 : q.chunk;
            input_transform(&q, src, g, t0, nb, v);
            for (int x = 0; x < WG_X; x++)
                fd_cpu_gemm_team(nt, CUDNN_DATA_FLOAT, q.co, nb, q.ci, 1.0, u + x * q.co * q.ci, q.ci, 1,
                            v + x * q.ci * q.chunk, q.chunk, 1, 0.0, m + x * q.co * q.chunk,
                            q.chunk, 1);
            output_transform(&q, m, g, t0, nb, a->out, a->alpha, a->beta);
        }
    }
    fd_cpu_blas_serial_end();
    return CUDNN_STATUS_SUCCESS;
}

int fd_conv_fwd_winograd_f32_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return wg_applicable(p, why, why_size);
}
size_t fd_conv_fwd_winograd_f32_workspace(const fd_conv_problem_t *p)
{
    return wg_workspace(p);
}
cudnnStatus_t fd_conv_fwd_winograd_f32_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    return wg_run(p, a);
}
int fd_conv_bwd_data_winograd_f32_applicable(const fd_conv_problem_t *p, char *why,
                                             size_t why_size)
{
    return wg_applicable(p, why, why_size);
}
size_t fd_conv_bwd_data_winograd_f32_workspace(const fd_conv_problem_t *p)
{
    return wg_workspace(p);
}
cudnnStatus_t fd_conv_bwd_data_winograd_f32_run(const fd_conv_problem_t *p,
                                                const fd_conv_args_t *a)
{
    return wg_run(p, a);
}
