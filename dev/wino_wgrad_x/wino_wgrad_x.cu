// SPDX-License-Identifier: MIT
// dev/wino_wgrad_x: sandbox for the x transform of the cuda Winograd backward filter
// (wgw_x_transform in src/cuda/conv_winograd.cu): V[xi][tt][c] = (B^T d B)[xi] of x's 6x6 tile
// under dy's 4x4 tile t0 + tt, channels contiguous in V (the GEMM's B operand), zeros for the
// channels C .. cp - 1. On NCHW x the library kernel (one thread per (tile, channel), channel
// fastest) gathers 36 scattered floats per thread: ncu on the H100 gave 37-42 us and 290-330
// GB/s for DeepBench's n16 c128 56x56 (docs/perf/gpu-wgrad-2026-12-06c-h100.md), against 30 us
// for the dy transform of twice as many channels. One file: a CPU reference in double,
// v0 = a copy of the library kernel, v1 = the same arithmetic on rows staged in shared memory,
// a checker (bit identity against v0, distance to the reference) and an event timer.
// Usage: wino_wgrad_x [--only vN]. Prints `vN problem us GB/s bitid=yes|no maxrel=.. ok|FAIL`
// (GB/s = (x bytes + V bytes) / time). Exit 77 without a GPU. README.md lists the versions.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define WG_M 4
#define WG_T 6
#define WG_X 36

// The plan fields the x transform reads (a subset of wgw_plan_t).
struct plan_t {
    int c, cp, ih, iw, pad_h, pad_w, th, tw;
    int64_t xn, xc, xh, xw;
    int64_t chunk;
};

// ================================ v0: the library kernel ======================================
static __device__ __forceinline__ void bt6(const float *in, int is, float *out, int os)
{
    const float d0 = in[0], d1 = in[is], d2 = in[2 * is], d3 = in[3 * is], d4 = in[4 * is],
                d5 = in[5 * is];
    out[0] = 4.0f * d0 - 5.0f * d2 + d4;
    out[os] = -4.0f * d1 - 4.0f * d2 + d3 + d4;
    out[2 * os] = 4.0f * d1 - 4.0f * d2 - d3 + d4;
    out[3 * os] = -2.0f * d1 - d2 + 2.0f * d3 + d4;
    out[4 * os] = 2.0f * d1 - d2 - 2.0f * d3 + d4;
    out[5 * os] = 4.0f * d1 - 5.0f * d3 + d5;
}

static __device__ __forceinline__ void tile_btb(float (&d)[WG_X])
{
    float tmp[WG_X];
#pragma unroll
    for (int b = 0; b < WG_T; b++) /* columns: tmp = B^T d */
        bt6(d + b, WG_T, tmp + b, WG_T);
#pragma unroll
    for (int a = 0; a < WG_T; a++) /* rows: d = tmp B */
        bt6(tmp + a * WG_T, 1, d + a * WG_T, 1);
}

static __global__ void v0_x(const plan_t q, const float *__restrict__ x, int64_t t0, int nb,
                            float *__restrict__ v)
{
    const int64_t total = (int64_t)nb * q.cp, plane = q.chunk * q.cp;
    const int per_img = q.th * q.tw;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int tt = (int)(e / q.cp), c = (int)(e % q.cp);
        float *dst = v + e;
        if (c >= q.c) {
#pragma unroll
            for (int xi = 0; xi < WG_X; xi++)
                dst[xi * plane] = 0.0f;
            continue;
        }
        const int64_t t = t0 + tt, img = t / per_img;
        const int rem = (int)(t % per_img);
        const int h0 = (rem / q.tw) * WG_M - q.pad_h, w0 = (rem % q.tw) * WG_M - q.pad_w;
        const float *base = x + img * q.xn + c * q.xc;
        float d[WG_X];
#pragma unroll
        for (int a = 0; a < WG_T; a++)
#pragma unroll
            for (int b = 0; b < WG_T; b++) {
                const int hh = h0 + a, ww = w0 + b;
                d[a * WG_T + b] = (unsigned)hh < (unsigned)q.ih && (unsigned)ww < (unsigned)q.iw
                                      ? __ldg(base + (hh * q.xh + ww * q.xw))
                                      : 0.0f;
            }
        tile_btb(d);
#pragma unroll
        for (int xi = 0; xi < WG_X; xi++)
            dst[xi * plane] = d[xi];
    }
}

// ================================ v1: staged rows =============================================
// Block = a segment of up to V1_TS consecutive tiles of one tile row of one image x V1_CG
// channels, 256 threads. The segment's 6 x rows of 4 V1_TS + 2 columns per channel are copied
// into shared memory along w (a warp reads 32 consecutive floats of a row: NCHW's contiguous
// dimension), zeros outside x; then thread (tile tid / V1_CG, channel tid % V1_CG) takes its
// 6x6 patch from shared memory (a float4 and a float2 per row; the channel pitch is 4 mod 32
// floats, so the 8 threads of a quarter-warp hit 8 distinct 16-byte bank groups) and runs v0's
// arithmetic; the stores of a warp cover 4 tiles x 8 channels: four 32-byte runs of V. Tiles of
// the segment outside [t0, t0 + nb) are skipped (chunks may start and end inside a tile row).
#define V1_TS 32
#define V1_CG 8
#define V1_COLS (4 * V1_TS + 4)           /* 130 used, a multiple of 4 */
#define V1_PC (WG_T * V1_COLS + 12)       /* 804 = 4 mod 32 */
static_assert(V1_PC % 32 == 4, "channel pitch 4 mod 32 floats");

static __global__ void __launch_bounds__(256) v1_x(const plan_t q, const float *__restrict__ x,
                                                   int64_t t0, int nb, int64_t row0, int segs,
                                                   float *__restrict__ v)
{
    __shared__ __align__(16) float sm[V1_CG * V1_PC];
    const int tid = threadIdx.x;
    const int64_t row = row0 + blockIdx.x / segs; /* img * th + tile row */
    const int seg = blockIdx.x % segs;
    const int64_t img = row / q.th;
    const int th_i = (int)(row % q.th);
    const int tw0 = seg * V1_TS;
    const int c0 = blockIdx.y * V1_CG;
    const int h0 = th_i * WG_M - q.pad_h, w0 = tw0 * WG_M - q.pad_w;
    const int ncols = 4 * (q.tw - tw0 < V1_TS ? q.tw - tw0 : V1_TS) + 2;
    const int64_t plane = q.chunk * q.cp;
    /* stage: V1_CG channels x 6 rows x ncols columns, w fastest */
    for (int e = tid; e < V1_CG * WG_T * V1_COLS; e += 256) {
        const int col = e % V1_COLS, r = (e / V1_COLS) % WG_T, cl = e / (V1_COLS * WG_T);
        const int c = c0 + cl, hh = h0 + r, ww = w0 + col;
        float val = 0.0f;
        if (col < ncols && c < q.c && (unsigned)hh < (unsigned)q.ih && (unsigned)ww < (unsigned)q.iw)
            val = __ldg(x + (img * q.xn + c * q.xc + hh * q.xh + ww * q.xw));
        sm[cl * V1_PC + r * V1_COLS + col] = val;
    }
    __syncthreads();
    const int tl = tid / V1_CG, cl = tid % V1_CG, c = c0 + cl;
    const int64_t t = row * q.tw + tw0 + tl; /* the global tile */
    if (tw0 + tl >= q.tw || t < t0 || t >= t0 + nb || c >= q.cp)
        return;
    float *dst = v + (t - t0) * q.cp + c;
    if (c >= q.c) {
#pragma unroll
        for (int xi = 0; xi < WG_X; xi++)
            dst[xi * plane] = 0.0f;
        return;
    }
    float d[WG_X];
    const float *p = sm + cl * V1_PC + 4 * tl;
#pragma unroll
    for (int a = 0; a < WG_T; a++) {
        const float4 l = *(const float4 *)(p + a * V1_COLS);
        const float2 h = *(const float2 *)(p + a * V1_COLS + 4);
        d[a * WG_T + 0] = l.x, d[a * WG_T + 1] = l.y, d[a * WG_T + 2] = l.z;
        d[a * WG_T + 3] = l.w, d[a * WG_T + 4] = h.x, d[a * WG_T + 5] = h.y;
    }
    tile_btb(d);
#pragma unroll
    for (int xi = 0; xi < WG_X; xi++)
        dst[xi * plane] = d[xi];
}

// ================================ harness =====================================================
struct prob_t {
    const char *name;
    int n, c, h, w, pad;
    int64_t t0_cut, t1_cut; /* the chunk: tiles [t0_cut, tiles - t1_cut) */
};

static const prob_t probs[] = {
    {"n16c128h56w56p1", 16, 128, 56, 56, 1, 0, 0},    /* DeepBench 3x3 128 -> 256 */
    {"n256c512h7w7p1", 256, 512, 7, 7, 1, 0, 0},      /* ResNet-50 3x3 512 */
    {"n8c64h112w112p1", 8, 64, 112, 112, 1, 0, 0},    /* DeepBench 3x3 64 -> 128 */
    {"n3c37h9w11p1-cut", 3, 37, 9, 11, 1, 5, 4},      /* odd C (cp 40), a chunk inside rows */
    {"n2c5h13w150p0", 2, 5, 13, 150, 0, 0, 0},        /* 37 tiles a row: two segments */
    {"n1c3h5w5p2-cut", 1, 3, 5, 5, 2, 1, 1},          /* pad 2, more padding than x */
};

static double bt_ref(const std::vector<float> &x, const plan_t &q, int64_t img, int c, int h0,
                     int w0, int xi)
{
    static const double B[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                   {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                   {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
    const int i = xi / 6, j = xi % 6;
    double s = 0.0;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++) {
            const int hh = h0 + a, ww = w0 + b;
            if (hh < 0 || hh >= q.ih || ww < 0 || ww >= q.iw)
                continue;
            s += B[i][a] * B[j][b] * (double)x[img * q.xn + c * q.xc + hh * q.xh + ww * q.xw];
        }
    return s;
}

int main(int argc, char **argv)
{
    std::string only = argc > 2 && !strcmp(argv[1], "--only") ? argv[2] : "";
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no GPU\n");
        return 77;
    }
    int bad = 0;
    for (const prob_t &pr : probs) {
        plan_t q;
        q.c = pr.c, q.cp = (pr.c + 3) / 4 * 4, q.ih = pr.h, q.iw = pr.w;
        q.pad_h = q.pad_w = pr.pad;
        const int oh = pr.h + 2 * pr.pad - 2, ow = pr.w + 2 * pr.pad - 2;
        q.th = (oh + 3) / 4, q.tw = (ow + 3) / 4;
        q.xw = 1, q.xh = pr.w, q.xc = (int64_t)pr.h * pr.w, q.xn = (int64_t)pr.c * pr.h * pr.w;
        const int64_t tiles = (int64_t)pr.n * q.th * q.tw;
        const int64_t t0 = pr.t0_cut;
        const int nb = (int)(tiles - pr.t0_cut - pr.t1_cut);
        q.chunk = nb;
        const size_t xn = (size_t)pr.n * q.xn, vn = (size_t)WG_X * nb * q.cp;
        std::vector<float> hx(xn);
        uint64_t s = 12345;
        for (auto &e : hx) { /* uniform in [-1, 1) */
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            e = (float)((double)(s >> 11) * 0x1p-53 * 2.0 - 1.0);
        }
        float *dx, *dv0, *dv1;
        CK(cudaMalloc(&dx, xn * 4));
        CK(cudaMalloc(&dv0, vn * 4));
        CK(cudaMalloc(&dv1, vn * 4));
        CK(cudaMemcpy(dx, hx.data(), xn * 4, cudaMemcpyHostToDevice));
        std::vector<float> r0(vn), r1(vn);
        const int64_t row0 = t0 / q.tw, row1 = (t0 + nb - 1) / q.tw;
        const int segs = (q.tw + V1_TS - 1) / V1_TS;
        const dim3 g1((unsigned)((row1 - row0 + 1) * segs), (unsigned)((q.cp + V1_CG - 1) / V1_CG));
        const unsigned g0 = (unsigned)std::min<int64_t>(((int64_t)nb * q.cp + 255) / 256, 1 << 20);
        for (int ver = 0; ver < 2; ver++) {
            char vname[8];
            snprintf(vname, sizeof vname, "v%d", ver);
            if (!only.empty() && only != vname && ver != 0)
                continue;
            float *dv = ver ? dv1 : dv0;
            CK(cudaMemset(dv, 0xff, vn * 4)); /* NaN poison: every element must be written */
            auto launch = [&]() {
                if (ver == 0)
                    v0_x<<<g0, 256>>>(q, dx, t0, nb, dv);
                else
                    v1_x<<<g1, 256>>>(q, dx, t0, nb, row0, segs, dv);
            };
            launch();
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            std::vector<float> &r = ver ? r1 : r0;
            CK(cudaMemcpy(r.data(), dv, vn * 4, cudaMemcpyDeviceToHost));
            cudaEvent_t ea, eb;
            CK(cudaEventCreate(&ea));
            CK(cudaEventCreate(&eb));
            std::vector<float> ts;
            for (int rep = 0; rep < 15; rep++) {
                CK(cudaEventRecord(ea));
                for (int k = 0; k < 10; k++)
                    launch();
                CK(cudaEventRecord(eb));
                CK(cudaEventSynchronize(eb));
                float ms = 0.0f;
                CK(cudaEventElapsedTime(&ms, ea, eb));
                ts.push_back(ms * 100.0f); /* us per launch */
            }
            std::sort(ts.begin(), ts.end());
            const double us = ts[ts.size() / 2];
            /* checks: bits against v0, distance to the double reference relative to the tile's
             * sum of |terms| (float: each output mixes up to 36 terms with weights <= 25) */
            bool bitid = std::memcmp(r.data(), r0.data(), vn * 4) == 0;
            double maxrel = 0.0;
            bool ok = true;
            const int per_img = q.th * q.tw;
            for (int tt = 0; tt < nb && ok; tt++) {
                const int64_t t = t0 + tt, img = t / per_img;
                const int rem = (int)(t % per_img);
                const int h0 = (rem / q.tw) * 4 - q.pad_h, w0 = (rem % q.tw) * 4 - q.pad_w;
                for (int c = 0; c < q.cp; c++)
                    for (int xi = 0; xi < WG_X; xi++) {
                        const float got = r[(size_t)xi * nb * q.cp + (size_t)tt * q.cp + c];
                        const double want = c < q.c ? bt_ref(hx, q, img, c, h0, w0, xi) : 0.0;
                        const double err = fabs((double)got - want) / 36.0; /* |terms| <= 36 */
                        maxrel = std::max(maxrel, err);
                        if (!(err <= 64.0 * 0x1p-24 * 25.0)) /* NaN fails too */
                            ok = false;
                    }
            }
            const double gbs = (double)(xn + vn) * 4.0 / (us * 1e3);
            printf("%s %-18s %9.2f us %7.1f GB/s bitid=%s maxrel=%.2e %s\n", vname, pr.name, us,
                   gbs, bitid ? "yes" : "no", maxrel, ok && bitid ? "ok" : "FAIL");
            bad |= !(ok && bitid);
            CK(cudaEventDestroy(ea));
            CK(cudaEventDestroy(eb));
        }
        CK(cudaFree(dx));
        CK(cudaFree(dv0));
        CK(cudaFree(dv1));
    }
    return bad ? 1 : 0;
}
