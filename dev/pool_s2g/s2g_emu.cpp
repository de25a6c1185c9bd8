// SPDX-License-Identifier: MIT
// dev/pool_s2g/s2g_emu.cpp - the max-pool backward gathers of src/cuda/pooling_s2g.cuh (included
// as is) run on the host against a naive loop with src/ref's rules (first max, PROPAGATE_NAN's
// first NaN, -inf / empty windows route nothing, double sums in window order, the alpha / beta
// blend), bit for bit: FLOAT / HALF / BFLOAT16, channels-last and W innermost (a warp's
// shuffles by 32 host threads and a barrier), ties, +0 / -0, NaN / -inf fills, odd sizes, ceil
// sizes, both blends. For checking kernel logic on a machine without a GPU; the device truth is
// tests/gpu/test_gpu_pool_act. `make && ./s2g_emu` (prints the failing cases; exit 1 if any);
// `./s2g_emu nhwc`: the channels-last kernels only.
#include <condition_variable>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <float.h>
#include <math.h>
#include <mutex>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <vector>
#undef __device__
#undef __forceinline__
#undef __global__
#define __device__
#define __forceinline__ inline
#define __global__
#define __launch_bounds__(a, b)
#define __restrict__
#define FD_CUDA_BLOCK 256
#define POOL_S2_FULL 0xffffffffu
struct emu_dim {
    unsigned x;
};
static thread_local emu_dim threadIdx, blockIdx;
static emu_dim blockDim = {256};
static inline float __int_as_float(int i)
{
    float f;
    memcpy(&f, &i, 4);
    return f;
}
static inline float __uint_as_float(unsigned i)
{
    float f;
    memcpy(&f, &i, 4);
    return f;
}
static inline unsigned __float_as_uint(float f)
{
    unsigned i;
    memcpy(&i, &f, 4);
    return i;
}
static inline int __ffs(int x)
{
    return __builtin_ffs(x);
}
static inline double __dmul_rn(double a, double b)
{
    volatile double r = a * b;
    return r;
}
static inline double __dadd_rn(double a, double b)
{
    volatile double r = a + b;
    return r;
}
static inline float fd_cuda_ld(const float *p, int64_t i)
{
    return p[i];
}
static inline float fd_cuda_ld(const __half *p, int64_t i)
{
    return __half2float(p[i]);
}
static inline float fd_cuda_ld(const __nv_bfloat16 *p, int64_t i)
{
    return __bfloat162float(p[i]);
}
static inline void fd_cuda_st(float *p, int64_t i, double v)
{
    p[i] = (float)v;
}
static inline void fd_cuda_st(__half *p, int64_t i, double v)
{
    p[i] = __double2half(v);
}
static inline void fd_cuda_st(__nv_bfloat16 *p, int64_t i, double v)
{
    p[i] = __double2bfloat16(v);
}
#define BL(T)                                                                                      \
    static inline void fd_cuda_blend(T *out, int64_t off, double alpha, double beta, double v)     \
    {                                                                                              \
        double r = __dmul_rn(alpha, v);                                                            \
        if (beta != 0.0)                                                                           \
            r = __dadd_rn(r, __dmul_rn(beta, (double)fd_cuda_ld(out, off)));                       \
        fd_cuda_st(out, off, r);                                                                   \
    }
BL(float)
BL(__half)
BL(__nv_bfloat16)
// warp emulation for shuffles: 32 threads, a barrier
static int emu_lane()
{
    return threadIdx.x & 31;
}
struct Bar {
    std::mutex m;
    std::condition_variable cv;
    int n = 0, gen = 0;
    void wait()
    {
        std::unique_lock<std::mutex> l(m);
        int g = gen;
        if (++n == 32) {
            n = 0;
            gen++;
            cv.notify_all();
        } else
            cv.wait(l, [&] { return gen != g; });
    }
};
static Bar bar;
static uint64_t slot[32];
template <class T> static T shfl(T v, int d)
{
    uint64_t u = 0;
    memcpy(&u, &v, sizeof(T));
    slot[emu_lane()] = u;
    bar.wait();
    int src = emu_lane() + d;
    T r = v;
    if (src >= 0 && src < 32)
        memcpy(&r, &slot[src], sizeof(T));
    bar.wait();
    return r;
}
template <class T> static T __shfl_up_sync(unsigned, T v, int d)
{
    return shfl(v, -d);
}
template <class T> static T __shfl_down_sync(unsigned, T v, int d)
{
    return shfl(v, d);
}
typedef struct {
    int c, planes, in_h, in_w, out_h, out_w, win_h, win_w, pad_h, pad_w;
    int rows, cols, chunk, nchunks, wpr;
    int seg, yvec;
    int is_max, include_pad, propagate;
    int xs_n, xs_c, xs_h, xs_w, gs_n, gs_c, gs_h, gs_w, ds_n, ds_c, ds_h, ds_w;
    double lowest;
    int zcheap;
} pool_s2_t;
#include "../../src/cuda/pooling_s2g.cuh"

// ---- reference
static double ldv(int ty, const void *p, int64_t i)
{
    return ty == 0   ? ((const float *)p)[i]
           : ty == 1 ? (double)__half2float(((const __half *)p)[i])
                     : (double)__bfloat162float(((const __nv_bfloat16 *)p)[i]);
}
static void stv(int ty, void *p, int64_t i, double v)
{
    if (ty == 0)
        ((float *)p)[i] = (float)v;
    else if (ty == 1)
        ((__half *)p)[i] = __double2half(v);
    else
        ((__nv_bfloat16 *)p)[i] = __double2bfloat16(v);
}
static uint64_t rs = 88172645463325252ull;
static uint64_t rnd()
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
int fails = 0, cases = 0;
// nhwc: 1 channels-last, else NCHW with padded W (wpad extra)
static void run_case(int ty, int nhwc, int N, int C, int H, int W, int ceil, int prop, double alpha,
                     double beta, int fill, int wpad)
{
    int es = ty == 0 ? 4 : 2;
    int OH = (H + 2 - 3) / 2 + 1, OW = (W + 2 - 3) / 2 + 1;
    if (ceil) {
        if ((H - 1) % 2 && (OH)*2 - 1 < H)
            OH++;
        if ((W - 1) % 2 && OW * 2 - 1 < W)
            OW++;
    }
    // strides
    int64_t xs[4], ys[4]; // n c h w
    if (nhwc) {
        xs[1] = 1;
        xs[3] = C;
        xs[2] = (int64_t)C * W;
        xs[0] = xs[2] * H;
        ys[1] = 1;
        ys[3] = C;
        ys[2] = (int64_t)C * OW;
        ys[0] = ys[2] * OH;
    } else {
        xs[3] = 1;
        xs[2] = W + wpad;
        xs[1] = xs[2] * H;
        xs[0] = xs[1] * C;
        ys[3] = 1;
        ys[2] = OW + wpad;
        ys[1] = ys[2] * OH;
        ys[0] = ys[1] * C;
    }
    int64_t xn = xs[0] * N + 16, yn = ys[0] * N + 16;
    std::vector<char> x(xn * es + 64), dy(yn * es + 64), dx(xn * es + 64), rdx(xn * es + 64);
    char *xp = (char *)(((uintptr_t)x.data() + 15) & ~(uintptr_t)15),
         *dyp = (char *)(((uintptr_t)dy.data() + 15) & ~(uintptr_t)15);
    char *dxp = (char *)(((uintptr_t)dx.data() + 15) & ~(uintptr_t)15),
         *rp = (char *)(((uintptr_t)rdx.data() + 15) & ~(uintptr_t)15);
    for (int64_t i = 0; i < xn; i++) {
        double v;
        int k = rnd() % 16;
        if (fill == 0)
            v = (double)((int)(rnd() % 9) - 4);
        else if (fill == 1)
            v = k == 0 ? NAN : k == 1 ? -INFINITY : (double)((int)(rnd() % 9) - 4);
        else if (fill == 2)
            v = (rnd() % 5) ? 0.0 : ((rnd() & 1) ? -0.0 : (double)(rnd() % 7));
        else
            v = ((double)(rnd() % 100000) - 50000) / 7777.0;
        stv(ty, xp, i, v);
    }
    for (int64_t i = 0; i < yn; i++)
        stv(ty, dyp, i, ((double)(rnd() % 2000) - 1000) / 64.0);
    for (int64_t i = 0; i < xn; i++) {
        double v = beta != 0 ? ((double)(rnd() % 200) - 100) / 8.0 : NAN;
        stv(ty, dxp, i, v);
        stv(ty, rp, i, v);
    }
    double lowest = ty == 0 ? -FLT_MAX : ty == 1 ? -65504.0 : -0x1.fep127;
    // ref
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int h = 0; h < H; h++)
                for (int w = 0; w < W; w++) {
                    double acc = 0.0;
                    for (int i = 0; i < OH; i++)
                        for (int j = 0; j < OW; j++) {
                            int h0 = 2 * i - 1, w0 = 2 * j - 1;
                            if (h < h0 || h > h0 + 2 || w < w0 || w > w0 + 2)
                                continue;
                            double m = lowest;
                            int found = 0, ph = -1, pw = -1;
                            for (int a = h0; a < h0 + 3; a++) {
                                if (a < 0 || a >= H)
                                    continue;
                                int stop = 0;
                                for (int b = w0; b < w0 + 3; b++) {
                                    if (b < 0 || b >= W)
                                        continue;
                                    double v =
                                        ldv(ty, xp, n * xs[0] + c * xs[1] + a * xs[2] + b * xs[3]);
                                    if (v != v) {
                                        if (!prop)
                                            continue;
                                        ph = a, pw = b, found = 1;
                                        stop = 1;
                                        break;
                                    }
                                    if (found ? v > m : v >= m) {
                                        m = v;
                                        ph = a, pw = b;
                                        found = 1;
                                    }
                                }
                                if (stop)
                                    break;
                            }
                            if (found && ph == h && pw == w)
                                acc += ldv(ty, dyp, n * ys[0] + c * ys[1] + i * ys[2] + j * ys[3]);
                        }
                    int64_t o = n * xs[0] + c * xs[1] + h * xs[2] + w * xs[3];
                    double r = alpha * acc;
                    if (beta != 0)
                        r = r + beta * ldv(ty, rp, o);
                    stv(ty, rp, o, r);
                }
    pool_s2_t q;
    memset(&q, 0, sizeof q);
    const int geo[11] = {C, H, W, OH, OW, 3, 3, 1, 1, 1, prop};
    int *qg[11] = {&q.c,     &q.in_h,  &q.in_w,  &q.out_h,  &q.out_w,    &q.win_h,
                   &q.win_w, &q.pad_h, &q.pad_w, &q.is_max, &q.propagate};
    for (int k = 0; k < 11; k++)
        *qg[k] = geo[k];
    int *qs[3][4] = {{&q.xs_n, &q.xs_c, &q.xs_h, &q.xs_w},
                     {&q.gs_n, &q.gs_c, &q.gs_h, &q.gs_w},
                     {&q.ds_n, &q.ds_c, &q.ds_h, &q.ds_w}};
    for (int k = 0; k < 12; k++)
        *qs[k / 4][k % 4] = (int)(k / 4 == 1 ? ys : xs)[k % 4];
    if (nhwc) {
        q.planes = N;
        int L = 16 / es, cvn = C / L, sp = (W + 1) / 2, tp = (H + 1) / 2;
        int64_t th = (int64_t)N * ((tp + 3) / 4) * ((sp + 1) / 2) * 8 * cvn;
        int blocks = (th + 255) / 256;
        for (int b = 0; b < blocks; b++)
            for (int t = 0; t < 256; t++) {
                blockIdx.x = b;
                threadIdx.x = t;
                if (ty == 0)
                    pool_s2g_max_bwd_nhwc_f32(q, cvn, sp, tp, xp, dyp, dxp, alpha, beta);
                else if (ty == 1)
                    pool_s2g_max_bwd_nhwc_f16(q, cvn, sp, tp, xp, dyp, dxp, alpha, beta);
                else
                    pool_s2g_max_bwd_nhwc_bf16(q, cvn, sp, tp, xp, dyp, dxp, alpha, beta);
            }
    } else {
        q.planes = N * C;
        int groups = (W + 3) / 4, pairs = (H + 1) / 2;
        int64_t th = (int64_t)q.planes * pairs * groups;
        int blocks = (th + 255) / 256;
        for (int b = 0; b < blocks; b++)
            for (int w0 = 0; w0 < 256; w0 += 32) {
                std::vector<std::thread> ts;
                for (int l = 0; l < 32; l++)
                    ts.emplace_back([&, b, w0, l] {
                        blockIdx.x = b;
                        threadIdx.x = w0 + l;
                        if (ty == 0 && (H + W) % 2)
                            pool_s2g_max_bwd3_f32(q, groups, pairs, xp, dyp, dxp, alpha, beta);
                        else if (ty == 0)
                            pool_s2g_max_bwd_f32(q, groups, pairs, xp, dyp, dxp, alpha, beta);
                        else if (ty == 1)
                            pool_s2g_max_bwd_f16(q, groups, pairs, xp, dyp, dxp, alpha, beta);
                        else
                            pool_s2g_max_bwd_bf16(q, groups, pairs, xp, dyp, dxp, alpha, beta);
                    });
                for (auto &t : ts)
                    t.join();
            }
    }
    cases++;
    int bad = 0;
    for (int64_t i = 0; i < xn * es; i++)
        if (dxp[i] != rp[i]) {
            bad++;
        }
    if (bad) {
        fails++;
        printf("FAIL ty%d nhwc%d n%d c%d %dx%d ceil%d prop%d a%g b%g fill%d: %d bytes differ\n", ty,
               nhwc, N, C, H, W, ceil, prop, alpha, beta, fill, bad);
    }
}
int main(int argc, char **argv)
{
    const int nhwc_only = argc > 1 && strcmp(argv[1], "nhwc") == 0;
    static const int hw[][2] = {{56, 56}, {8, 20}, {4, 8}, {1, 12}, {2, 16},
                                {17, 29}, {9, 13}, {5, 7}, {3, 3},  {7, 1}};
    int nhw = sizeof hw / sizeof hw[0];
    for (int ty = 0; ty < 3; ty++)
        for (int k = 0; k < nhw; k++)
            for (int v = 0; v < 8; v++) {
                int es = ty == 0 ? 4 : 2, L = 16 / es;
                int ceil = v & 1, prop = (v >> 1) & 1, fill = (v + k) % 4;
                double al = (v >> 2) ? 0.5 : 1, be = (v >> 2) ? 0.25 : 0;
                run_case(ty, 1, k == 0 ? 1 : 2, L * (1 + v % 3), hw[k][0], hw[k][1], ceil, prop, al,
                         be, fill, 0);
                if (!nhwc_only && (k < 2 ? v < 2 : 1))
                    run_case(ty, 0, 1, k == 0 ? 1 : 2, hw[k][0], hw[k][1], ceil, prop, al, be, fill,
                             (4 - hw[k][1] % 4) % 4 + ((v & 4) ? 4 : 0));
            }
    printf("%d cases, %d failed\n", cases, fails);
    return fails != 0;
}
