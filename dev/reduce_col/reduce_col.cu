// SPDX-License-Identifier: MIT
// dev/reduce_col: sandbox for src/cuda/reduce.cu's rd_col (cudnnReduceTensor ADD, keep=c on
// NHWC and keep=nhw on NCHW): a column reduction over `rows` rows, rs elements apart, with
// per-batch offsets bs. One file: CPU reference (double), the library's shape (v0) and
// variants, a checker and a graph-replay timer. Usage: reduce_col [--only NAME] [--reps N].
// Prints `name problem us GB/s maxrel ok|FAIL`. Exit 77 without a GPU.
#include <cuda_fp16.h>
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

static __device__ __forceinline__ void pdl_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
static __device__ __forceinline__ void pdl_trigger(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// ---- loads: B bytes as 32-bit words, cache hint H (0 __ldg, 1 L1::no_allocate, 2 __ldcs) ----
template <int B, int H> struct raw {
    uint32_t w[B / 4];
    __device__ __forceinline__ void ld(const void *p)
    {
        if (B == 16) {
            uint4 u;
            if (H == 1)
                asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                             : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w)
                             : "l"(p));
            else if (H == 2)
                u = __ldcs((const uint4 *)p);
            else
                u = __ldg((const uint4 *)p);
            w[0] = u.x, w[1] = u.y, w[2] = u.z, w[3] = u.w;
        } else {
            uint2 u;
            if (H == 1)
                asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0,%1}, [%2];"
                             : "=r"(u.x), "=r"(u.y)
                             : "l"(p));
            else if (H == 2)
                u = __ldcs((const uint2 *)p);
            else
                u = __ldg((const uint2 *)p);
            w[0] = u.x, w[1] = u.y;
        }
    }
};
static __device__ __forceinline__ void cvt(const float *, uint32_t w, double *d)
{
    d[0] = (double)__uint_as_float(w);
}
static __device__ __forceinline__ void cvt(const __half *, uint32_t w, double *d)
{
    d[0] = (double)__half2float(__ushort_as_half((unsigned short)(w & 0xffffu)));
    d[1] = (double)__half2float(__ushort_as_half((unsigned short)(w >> 16)));
}
template <typename T, int B, int H>
static __device__ __forceinline__ void add_cols(double *s, const raw<B, H> &r)
{
    constexpr int E = 4 / (int)sizeof(T);
#pragma unroll
    for (int i = 0; i < B / 4; i++) {
        double d[E];
        cvt((const T *)0, r.w[i], d);
#pragma unroll
        for (int e = 0; e < E; e++)
            s[i * E + e] = __dadd_rn(s[i * E + e], d[e]);
    }
}

// ---- stage 1: rd_col's shape with V columns a thread, U loads a trip ----------------------
// grid (column groups, row chunks, batch), blocks of cb x rl; thread: columns cvi*V.., rows
// [r0, r0 + rt); rl row lanes meet in shared memory; states to ws (parts > 1) or to out.
// PIPE: the next trip's loads are issued before this trip's adds.
template <typename T, int V, int U, int MINB, int H, bool PIPE>
static __global__ void __launch_bounds__(256, MINB)
    colk(const T *__restrict__ a, double *__restrict__ ws, T *__restrict__ out, uint32_t ncv,
         uint32_t cb, uint32_t rl, uint32_t rows, uint32_t rt, uint32_t rs, uint64_t bs, int tr)
{
    constexpr int B = V * (int)sizeof(T);
    __shared__ double s_acc[256 * V];
    pdl_trigger();
    const uint32_t tx = threadIdx.x % cb, ty = threadIdx.x / cb;
    const uint32_t cvi = blockIdx.x * cb + tx;
    const uint32_t r0 = (blockIdx.y * rl + ty) * rt;
    const uint32_t r1 = r0 + rt < rows ? r0 + rt : rows;
    double s[V];
#pragma unroll
    for (int e = 0; e < V; e++)
        s[e] = 0.0;
    if (cvi < ncv) {
        const T *p = a + blockIdx.z * bs + (uint64_t)cvi * V;
        uint32_t r = r0;
        if (PIPE && r + U <= r1) {
            raw<B, H> v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                v[u].ld(p + (uint64_t)(r + u) * rs);
            r += U;
            for (; r + U <= r1; r += U) {
                raw<B, H> w[U];
#pragma unroll
                for (int u = 0; u < U; u++)
                    w[u].ld(p + (uint64_t)(r + u) * rs);
#pragma unroll
                for (int u = 0; u < U; u++)
                    add_cols<T>(s, v[u]);
#pragma unroll
                for (int u = 0; u < U; u++)
                    v[u] = w[u];
            }
#pragma unroll
            for (int u = 0; u < U; u++)
                add_cols<T>(s, v[u]);
        } else {
            for (; r + U <= r1; r += U) {
                raw<B, H> v[U];
#pragma unroll
                for (int u = 0; u < U; u++)
                    v[u].ld(p + (uint64_t)(r + u) * rs);
#pragma unroll
                for (int u = 0; u < U; u++)
                    add_cols<T>(s, v[u]);
            }
        }
        for (; r < r1; r++) {
            raw<B, H> v;
            v.ld(p + (uint64_t)r * rs);
            add_cols<T>(s, v);
        }
    }
    if (rl > 1) {
#pragma unroll
        for (int e = 0; e < V; e++)
            s_acc[threadIdx.x * V + e] = s[e];
        for (uint32_t h = 1; h < rl; h <<= 1) {
            __syncthreads();
            if (ty % (2 * h) == 0 && ty + h < rl) {
                const uint32_t q = (threadIdx.x + h * cb) * V;
#pragma unroll
                for (int e = 0; e < V; e++) {
                    s[e] = __dadd_rn(s[e], s_acc[q + e]);
                    s_acc[threadIdx.x * V + e] = s[e];
                }
            }
        }
    }
    if (ty == 0 && cvi < ncv) {
        const uint64_t o0 = (uint64_t)blockIdx.z * ncv * V + (uint64_t)cvi * V;
#pragma unroll
        for (int e = 0; e < V; e++) {
            if (gridDim.y == 1)
                out[o0 + e] = (T)s[e];
            else if (tr)
                ws[(o0 + e) * gridDim.y + blockIdx.y] = s[e];
            else
                ws[(uint64_t)blockIdx.y * gridDim.z * ncv * V + o0 + e] = s[e];
        }
    }
}

// ---- stage 2 (rd_fin2's shape): 8 outputs x 32 lanes a block, fixed tree ------------------
template <typename T>
static __global__ void __launch_bounds__(256)
    fin2(const double *__restrict__ ws, T *__restrict__ out, uint32_t outs, uint32_t parts)
{
    __shared__ double s_acc[256];
    const uint32_t oo = threadIdx.x % 8, kl = threadIdx.x / 8;
    const uint32_t o = blockIdx.x * 8 + oo;
    double s = 0.0;
    pdl_wait();
    if (o < outs) {
        uint32_t k = kl;
        for (; k + 3 * 32 < parts; k += 4 * 32) {
            double v[4];
#pragma unroll
            for (int u = 0; u < 4; u++)
                v[u] = ws[(uint64_t)(k + u * 32) * outs + o];
#pragma unroll
            for (int u = 0; u < 4; u++)
                s = __dadd_rn(s, v[u]);
        }
        for (; k < parts; k += 32)
            s = __dadd_rn(s, ws[(uint64_t)k * outs + o]);
    }
    s_acc[threadIdx.x] = s;
    for (uint32_t h = 1; h < 32; h <<= 1) {
        __syncthreads();
        if (kl % (2 * h) == 0) {
            s = __dadd_rn(s, s_acc[threadIdx.x + h * 8]);
            s_acc[threadIdx.x] = s;
        }
    }
    if (kl == 0 && o < outs)
        out[o] = (T)s;
}

// ---- stage 2, transposed states (ws[o * parts + k]): a block per output, 256 lanes --------
template <typename T>
static __global__ void __launch_bounds__(256)
    fin2t(const double *__restrict__ ws, T *__restrict__ out, uint32_t outs, uint32_t parts)
{
    __shared__ double s_acc[256];
    const uint32_t o = blockIdx.x;
    double s = 0.0;
    pdl_wait();
    const double *p = ws + (uint64_t)o * parts;
    uint32_t k = threadIdx.x;
    for (; k + 256 < parts; k += 512) {
        const double a = p[k], b = p[k + 256];
        s = __dadd_rn(__dadd_rn(s, a), b);
    }
    if (k < parts)
        s = __dadd_rn(s, p[k]);
    s_acc[threadIdx.x] = s;
    for (uint32_t h = 128; h > 0; h >>= 1) {
        __syncthreads();
        if (threadIdx.x < h) {
            s = __dadd_rn(s, s_acc[threadIdx.x + h]);
            s_acc[threadIdx.x] = s;
        }
    }
    if (threadIdx.x == 0)
        out[o] = (T)s;
}

// ---- problems, configurations -------------------------------------------------------------
struct prob {
    const char *name;
    bool half;
    int keep_c; // 1: keep=c NHWC (rows N*H*W, cols C); 0: keep=nhw NCHW (per image rows C, cols HW)
    int n, c, hw;
};

struct cfg {
    std::string name;
    int v, u, minb, hint;
    bool pipe;
    int hw;    // keep=c: target blocks = hw / 2 waves of SMs * minb (0: one wave, the library's)
    int cbfix; // 0: the library's column-block rule
    int fin;   // 0 fin2, 1 fin2t (transposed states)
};

typedef void (*kfun)(const void *, double *, void *, uint32_t, uint32_t, uint32_t, uint32_t,
                     uint32_t, uint32_t, uint64_t, int);

template <typename T, int V, int U, int MINB, int H, bool PIPE> static kfun kp()
{
    return (kfun)(void *)colk<T, V, U, MINB, H, PIPE>;
}

// Kernel pointer for (half, v, u, minb, hint, pipe); nullptr when not instantiated.
static kfun pick(bool half, const cfg &c)
{
#define KP(T, V, U, M, H, P)                                                                       \
    if (c.v == V && c.u == U && c.minb == M && c.hint == H && c.pipe == P)                         \
        return kp<T, V, U, M, H, P>();
    if (half) {
        KP(__half, 4, 4, 8, 0, false)
        KP(__half, 4, 8, 8, 0, false)
        KP(__half, 4, 4, 6, 0, true)
        KP(__half, 4, 4, 8, 1, false)
        KP(__half, 8, 4, 6, 0, false)
        KP(__half, 8, 4, 4, 0, false)
        KP(__half, 8, 8, 4, 0, false)
        KP(__half, 8, 4, 4, 0, true)
        KP(__half, 8, 4, 6, 1, false)
        KP(__half, 8, 2, 6, 0, false)
        KP(__half, 8, 2, 5, 0, true)
    } else {
        KP(float, 4, 4, 6, 0, false)
        KP(float, 4, 8, 6, 0, false)
        KP(float, 4, 8, 4, 0, false)
        KP(float, 4, 4, 4, 0, true)
        KP(float, 4, 4, 6, 1, false)
        KP(float, 4, 4, 8, 0, false)
        KP(float, 4, 2, 8, 0, false)
        KP(float, 4, 2, 6, 0, true)
        KP(float, 2, 4, 8, 0, false)
        KP(float, 2, 8, 8, 0, false)
        KP(float, 4, 4, 5, 0, false)
    }
#undef KP
    return nullptr;
}

static uint32_t col_block(uint32_t ncv, int one_lane)
{
    if (ncv <= 32 || (one_lane && ncv <= 256))
        return ncv;
    if (one_lane)
        return 256;
    uint32_t best = 32;
    uint64_t best_slots = ~0ull;
    for (uint32_t cb = 32; cb <= 256; cb *= 2) {
        const uint64_t slots = ((uint64_t)ncv + cb - 1) / cb * cb;
        if (slots < best_slots)
            best = cb, best_slots = slots;
    }
    return best;
}

struct plan {
    uint32_t ncv, cb, rl, rows, rt, rs, parts, outs;
    uint64_t bs;
    dim3 grid;
    unsigned block;
};

static plan make_plan(const prob &p, const cfg &c, int sms)
{
    plan P = {};
    if (p.keep_c) {
        P.rows = (uint32_t)p.n * p.hw, P.rs = p.c, P.bs = 0;
        P.ncv = p.c / c.v;
        P.cb = c.cbfix ? c.cbfix : col_block(P.ncv, 0);
        P.rl = 256 / P.cb;
        const uint32_t gx = (P.ncv + P.cb - 1) / P.cb;
        const uint64_t tb = std::max<uint64_t>(1, (uint64_t)sms * c.minb * (c.hw ? c.hw : 2) / 2);
        const uint64_t by_rows = (64 + P.rl - 1) / P.rl,
                       by_blocks = ((uint64_t)P.rows * gx + tb * P.rl - 1) / (tb * P.rl);
        P.rt = (uint32_t)std::max(by_rows, by_blocks);
        P.parts = (P.rows + P.rl * P.rt - 1) / (P.rl * P.rt);
        P.grid = dim3(gx, P.parts, 1);
        P.outs = p.c;
    } else {
        P.rows = p.c, P.rs = p.hw, P.bs = (uint64_t)p.c * p.hw;
        P.ncv = p.hw / c.v;
        P.cb = c.cbfix ? c.cbfix : col_block(P.ncv, 0);
        P.rl = 256 / P.cb;
        P.rt = (p.c + P.rl - 1) / P.rl;
        P.parts = 1;
        P.grid = dim3((P.ncv + P.cb - 1) / P.cb, 1, p.n);
        P.outs = (uint32_t)p.n * p.hw;
    }
    P.block = P.cb * P.rl;
    return P;
}

static void launch(kfun k, bool half, const plan &P, const void *a, double *ws, void *out,
                   cudaStream_t st, bool pdl, int fin, bool s1only)
{
    k<<<P.grid, P.block, 0, st>>>(a, ws, out, P.ncv, P.cb, P.rl, P.rows, P.rt, P.rs, P.bs, fin);
    if (P.parts > 1 && !s1only) {
        cudaLaunchConfig_t cf = {};
        cudaLaunchAttribute at[1];
        cf.gridDim = dim3(fin ? P.outs : (P.outs + 7) / 8), cf.blockDim = dim3(256), cf.stream = st;
        if (pdl) {
            at[0] = cudaLaunchAttribute{};
            at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            at[0].val.programmaticStreamSerializationAllowed = 1;
            cf.attrs = at, cf.numAttrs = 1;
        }
        if (half)
            CK(cudaLaunchKernelEx(&cf, fin ? fin2t<__half> : fin2<__half>, (const double *)ws,
                                  (__half *)out, P.outs, P.parts));
        else
            CK(cudaLaunchKernelEx(&cf, fin ? fin2t<float> : fin2<float>, (const double *)ws,
                                  (float *)out, P.outs, P.parts));
    }
}

int main(int argc, char **argv)
{
    const char *only = nullptr;
    int reps = 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no GPU\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int sms = prop.multiProcessorCount;
    printf("device %s, %d SMs\n", prop.name, sms);

    const prob probs[] = {
        {"f16_nhwc_keepc_n32c256h56w56", true, 1, 32, 256, 3136},
        {"f32_nhwc_keepc_n32c128h56w56", false, 1, 32, 128, 3136},
        {"f16_nchw_keepnhw_n32c256h56w56", true, 0, 32, 256, 3136},
        {"f32_nchw_keepnhw_n32c128h56w56", false, 0, 32, 128, 3136},
        {"f16_nhwc_keepc_odd_n3c40h7w9", true, 1, 3, 40, 63},
        {"f32_nchw_keepnhw_odd_n3c70h9w12", false, 0, 3, 70, 108},
    };
    // name, v, u, minb, hint, pipe, waves, cbfix
    // name, v, u, minb, hint, pipe, half-waves, cbfix, fin
    const cfg hcfg[] = {
        {"h_v0_lib", 4, 4, 8, 0, false, 0, 0, 0},  {"h_v0_t", 4, 4, 8, 0, false, 0, 0, 1},
        {"h_u8", 4, 8, 8, 0, false, 0, 0, 0},      {"h_u8_t", 4, 8, 8, 0, false, 0, 0, 1},
        {"h_u8_hw1", 4, 8, 8, 0, false, 1, 0, 0},  {"h_u8_hw1t", 4, 8, 8, 0, false, 1, 0, 1},
        {"h_v0_hw1t", 4, 4, 8, 0, false, 1, 0, 1}, {"h_v0_w2t", 4, 4, 8, 0, false, 4, 0, 1},
        {"h_pipe", 4, 4, 6, 0, true, 0, 0, 0},     {"h_pipe_t", 4, 4, 6, 0, true, 0, 0, 1},
        {"h_u8cb64", 4, 8, 8, 0, false, 0, 64, 0}, {"h_u8cb64t", 4, 8, 8, 0, false, 0, 64, 1},
        {"h_v8u8m4t", 8, 8, 4, 0, false, 0, 0, 1}, {"h_cb64", 4, 4, 8, 0, false, 0, 64, 0},
        {"h_u8cb16", 4, 8, 8, 0, false, 0, 16, 0}, {"h_u8cb16t", 4, 8, 8, 0, false, 0, 16, 1},
        {"h_u8cb8", 4, 8, 8, 0, false, 0, 8, 0},   {"h_u8cb8t", 4, 8, 8, 0, false, 0, 8, 1},
        {"h_v0cb16", 4, 4, 8, 0, false, 0, 16, 0}, {"h_v0cb8", 4, 4, 8, 0, false, 0, 8, 0},
        {"h_u8cb16hw1", 4, 8, 8, 0, false, 1, 16, 0},
    };
    const cfg fcfg[] = {
        {"f_v0_lib", 4, 4, 6, 0, false, 0, 0, 0},  {"f_v0_t", 4, 4, 6, 0, false, 0, 0, 1},
        {"f_u8m4", 4, 8, 4, 0, false, 0, 0, 0},    {"f_u8m4t", 4, 8, 4, 0, false, 0, 0, 1},
        {"f_u8m6", 4, 8, 6, 0, false, 0, 0, 0},    {"f_u8m6t", 4, 8, 6, 0, false, 0, 0, 1},
        {"f_pipe_t", 4, 4, 4, 0, true, 0, 0, 1},   {"f_v2_t", 2, 4, 8, 0, false, 0, 0, 1},
        {"f_v2u8_t", 2, 8, 8, 0, false, 0, 0, 1},  {"f_v2u8hw1t", 2, 8, 8, 0, false, 1, 0, 1},
        {"f_m8_t", 4, 4, 8, 0, false, 0, 0, 1},    {"f_hw1t", 4, 4, 6, 0, false, 1, 0, 1},
        {"f_w2t", 4, 4, 6, 0, false, 4, 0, 1},     {"f_cb64", 4, 4, 6, 0, false, 0, 64, 0},
        {"f_cb64u8", 4, 8, 6, 0, false, 0, 64, 0}, {"f_cb64m4", 4, 4, 4, 0, false, 0, 64, 0},
        {"f_cb64m5", 4, 4, 5, 0, false, 0, 64, 0}, {"f_cb64u2m8", 4, 2, 8, 0, false, 0, 64, 0},
        {"f_cb32u8", 4, 8, 6, 0, false, 0, 32, 0},
        {"f_v2u8cb16", 2, 8, 8, 0, false, 0, 16, 0}, {"f_v2u8cb16t", 2, 8, 8, 0, false, 0, 16, 1},
        {"f_v2u8cb8", 2, 8, 8, 0, false, 0, 8, 0},   {"f_v2u8cb8t", 2, 8, 8, 0, false, 0, 8, 1},
        {"f_cb16", 4, 4, 6, 0, false, 0, 16, 0},     {"f_cb16t", 4, 4, 6, 0, false, 0, 16, 1},
        {"f_cb8", 4, 4, 6, 0, false, 0, 8, 0},       {"f_u8m4cb16", 4, 8, 4, 0, false, 0, 16, 0},
        {"f_v2u8", 2, 8, 8, 0, false, 0, 0, 0},      {"f_v2u8hw1", 2, 8, 8, 0, false, 1, 0, 0},
    };

    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (const prob &p : probs) {
        const size_t es = p.half ? 2 : 4, n_el = (size_t)p.n * p.c * p.hw;
        std::vector<float> hf(n_el);
        std::vector<unsigned short> hh(n_el);
        uint64_t seed = 12345;
        for (size_t i = 0; i < n_el; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            const float v = (float)((int)((seed >> 33) % 2001) - 1000) / 256.0f;
            if (p.half) {
                const __half h = __float2half(v);
                memcpy(&hh[i], &h, 2);
                hf[i] = __half2float(h);
            } else {
                hf[i] = v;
            }
        }
        // reference (double, any order: the fills are multiples of 1/256 below 4: exact sums)
        const size_t outs = p.keep_c ? (size_t)p.c : (size_t)p.n * p.hw;
        std::vector<double> ref(outs, 0.0);
        for (int n = 0; n < p.n; n++)
            for (int c = 0; c < p.c; c++)
                for (int s = 0; s < p.hw; s++) {
                    if (p.keep_c) // NHWC: element (n, s, c)
                        ref[c] += hf[((size_t)n * p.hw + s) * p.c + c];
                    else // NCHW: element (n, c, s)
                        ref[(size_t)n * p.hw + s] += hf[((size_t)n * p.c + c) * p.hw + s];
                }
        void *da, *dout;
        double *dws;
        CK(cudaMalloc(&da, n_el * es));
        CK(cudaMalloc(&dout, outs * es));
        CK(cudaMalloc(&dws, (size_t)64 << 20));
        CK(cudaMemcpy(da, p.half ? (const void *)hh.data() : (const void *)hf.data(), n_el * es,
                      cudaMemcpyHostToDevice));
        const double gb = (double)(n_el + outs) * es / 1e9;
        const cfg *cs = p.half ? hcfg : fcfg;
        const int ncs = p.half ? (int)(sizeof(hcfg) / sizeof(hcfg[0]))
                               : (int)(sizeof(fcfg) / sizeof(fcfg[0]));
        for (int ci = 0; ci < ncs; ci++) {
            const cfg &c = cs[ci];
            if (only && c.name != only)
                continue;
            if (p.c % c.v != 0 && p.keep_c)
                continue;
            if (!p.keep_c && p.hw % c.v != 0)
                continue;
            const kfun k = pick(p.half, c);
            if (!k) {
                printf("%s %s: not instantiated\n", c.name.c_str(), p.name);
                continue;
            }
            const plan P = make_plan(p, c, sms);
            if ((size_t)P.parts * P.outs * 8 > ((size_t)64 << 20)) {
                printf("%s %s: workspace too large\n", c.name.c_str(), p.name);
                continue;
            }
            for (int mode = 0; mode < (P.parts > 1 ? 3 : 1); mode++) {
                const int pdl = mode != 1;
                const bool s1 = mode == 2;
                CK(cudaMemset(dout, 0xff, outs * es));
                launch(k, p.half, P, da, dws, dout, st, pdl != 0, c.fin, false);
                CK(cudaStreamSynchronize(st));
                CK(cudaGetLastError());
                std::vector<unsigned short> oh(outs);
                std::vector<float> of(outs);
                CK(cudaMemcpy(p.half ? (void *)oh.data() : (void *)of.data(), dout, outs * es,
                              cudaMemcpyDeviceToHost));
                double maxrel = 0.0;
                for (size_t o = 0; o < outs; o++) {
                    double got;
                    if (p.half) {
                        __half h;
                        memcpy(&h, &oh[o], 2);
                        got = __half2float(h);
                    } else {
                        got = of[o];
                    }
                    const double want = p.half ? (double)__half2float(__float2half((float)ref[o]))
                                               : (double)(float)ref[o];
                    const double rel = fabs(got - want) / std::max(1.0, fabs(want));
                    if (!(rel <= maxrel))
                        maxrel = rel != rel ? INFINITY : std::max(maxrel, rel);
                }
                const bool ok = maxrel <= (p.half ? 1e-3 : 0.0);
                // time: a graph of 20 calls, replayed
                cudaGraph_t g;
                cudaGraphExec_t ge;
                CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
                for (int i = 0; i < 20; i++)
                    launch(k, p.half, P, da, dws, dout, st, pdl != 0, c.fin, s1);
                CK(cudaStreamEndCapture(st, &g));
                CK(cudaGraphInstantiate(&ge, g, 0));
                for (int i = 0; i < 5; i++)
                    CK(cudaGraphLaunch(ge, st));
                cudaEvent_t e0, e1;
                CK(cudaEventCreate(&e0));
                CK(cudaEventCreate(&e1));
                std::vector<float> t;
                for (int i = 0; i < reps; i++) {
                    CK(cudaEventRecord(e0, st));
                    CK(cudaGraphLaunch(ge, st));
                    CK(cudaEventRecord(e1, st));
                    CK(cudaEventSynchronize(e1));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    t.push_back(ms * 1000.0f / 20.0f);
                }
                std::sort(t.begin(), t.end());
                const double us = t[t.size() / 2];
                printf("%-12s %-32s %s grid=%ux%ux%u blk=%u rt=%u parts=%u  %8.2f us %7.0f "
                       "GB/s maxrel=%.1e %s\n",
                       c.name.c_str(), p.name, s1 ? "s1only" : pdl ? "pdl=1 " : "pdl=0 ", P.grid.x, P.grid.y, P.grid.z, P.block, P.rt,
                       P.parts, us, gb / (us * 1e-6), maxrel, ok ? "ok" : "FAIL");
                fflush(stdout);
                CK(cudaEventDestroy(e0));
                CK(cudaEventDestroy(e1));
                CK(cudaGraphExecDestroy(ge));
                CK(cudaGraphDestroy(g));
            }
        }
        CK(cudaFree(da));
        CK(cudaFree(dout));
        CK(cudaFree(dws));
    }
    return 0;
}
