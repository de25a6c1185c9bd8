/* SPDX-License-Identifier: MIT */
/*
 * dev/nhwc_strips - why the slab-pipelined NHWC batch norm (branch gpu-bn-slab, 2026-12-04) ran
 * at 0.5-0.7 TB/s: is it the DRAM pattern of reading one column strip of every row at a time,
 * or the kernel's own waits? Copies x -> y of an NHWC tensor of `rows` rows of `rb` bytes
 * (n32 c256 56x56 f16: 100352 rows of 512 bytes, 51.4 MB) with one CTA of 512 threads an SM,
 * CTA b owning rows [b m / G, (b + 1) m / G), in strips of `sb` bytes of every row:
 *   rows      whole rows, no strips (the reference: a plain copy in the same mapping)
 *   sync      strip s of every CTA's rows, s = 0, 1, ..., a grid barrier between strips (what the
 *             slab kernel does: every CTA on the same byte range of the rows at a time)
 *   stagger   the same with CTA b on strip (s + b) % strips (every byte range at a time)
 *   free      strip after strip, no barrier (the CTAs drift apart)
 * 16-byte loads, 4 in flight a thread, plain stores. Timed with events over `reps` launches
 * after a warm-up, two buffer pairs alternating (x of 51 MB does not stay in L2 either way).
 * GB/s counts x read and y written once. Cooperative launch (the barriers need every CTA
 * resident).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define T 512

/* grid barrier on a counter that only grows: wait until it reaches target */
static __device__ void gsync(unsigned *ctr, unsigned target)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(ctr, 1u);
        while (*(volatile unsigned *)ctr < target)
            __nanosleep(32);
        __threadfence();
    }
    __syncthreads();
}

/* mode 0 rows, 1 sync, 2 stagger, 3 free */
static __global__ void __launch_bounds__(T, 1)
    strips(const uint4 *__restrict__ x, uint4 *__restrict__ y, long long rows, int rv, int sv,
           int mode, unsigned *ctr)
{
    const long long G = gridDim.x, b = blockIdx.x, r0 = b * rows / G;
    const int nr = (int)((b + 1) * rows / G - r0);
    const int ns = mode == 0 ? 1 : rv / sv, w = mode == 0 ? rv : sv;
    for (int s = 0; s < ns; s++) {
        const int st = mode == 2 ? (int)((s + b) % ns) : s;
        const int n = nr * w;
        for (int i0 = threadIdx.x; i0 < n; i0 += 4 * T) {
            uint4 v[4];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int i = i0 + u * T;
                if (i < n)
                    v[u] = x[(r0 + i / w) * rv + st * w + i % w];
            }
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int i = i0 + u * T;
                if (i < n)
                    y[(r0 + i / w) * rv + st * w + i % w] = v[u];
            }
        }
        if (mode == 1 || mode == 2)
            gsync(ctr, (unsigned)(G * (s + 1)));
    }
}

int main(int argc, char **argv)
{
    long long rows = 100352;
    int rb = 512, reps = 20;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--rows=", 7))
            rows = atoll(argv[i] + 7);
        else if (!strncmp(argv[i], "--rb=", 5))
            rb = atoi(argv[i] + 5);
        else if (!strncmp(argv[i], "--reps=", 7))
            reps = atoi(argv[i] + 7);
    }
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t bytes = (size_t)rows * rb;
    uint4 *x[2], *y[2];
    unsigned *ctr;
    for (int k = 0; k < 2; k++) {
        CK(cudaMalloc(&x[k], bytes));
        CK(cudaMalloc(&y[k], bytes));
        CK(cudaMemset(x[k], 1, bytes));
    }
    CK(cudaMalloc(&ctr, 4));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    printf("nhwc_strips: %lld rows of %d bytes (%.1f MB), %d CTAs of %d threads\n", rows, rb,
           bytes / 1e6, sms, T);
    const char *names[4] = {"rows", "sync", "stagger", "free"};
    const int rv = rb / 16;
    for (int sb = 256; sb >= 32; sb /= 2)
        for (int mode = 0; mode < 4; mode++) {
            if (mode == 0 && sb != 256)
                continue;
            int sv = sb / 16;
            float best = 1e30f, sum = 0;
            for (int it = -2; it < reps; it++) {
                CK(cudaMemset(ctr, 0, 4));
                const uint4 *xa = x[it & 1];
                uint4 *ya = y[it & 1];
                long long ra = rows;
                int m = mode;
                void *args[] = {&xa, &ya, &ra, (void *)&rv, &sv, &m, &ctr};
                CK(cudaEventRecord(e0));
                CK(cudaLaunchCooperativeKernel((const void *)strips, dim3(sms), dim3(T), args, 0,
                                               0));
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (it >= 0) {
                    best = ms < best ? ms : best;
                    sum += ms;
                }
            }
            printf("%-8s strip %3d B: best %7.2f us %7.0f GB/s, mean %7.2f us %7.0f GB/s\n",
                   names[mode], mode == 0 ? rb : sb, best * 1e3, 2 * bytes / (best * 1e-3) / 1e9,
                   sum / reps * 1e3, 2 * bytes / (sum / reps * 1e-3) / 1e9);
        }
    return 0;
}
