/* SPDX-License-Identifier: MIT */
/*
 * conv_tc_kernels.cuh - the forward implicit-GEMM tensor-core kernel of conv_tc.cu for one
 * storage type. conv_tc.cu includes this once per type with FD_T (__half or __nv_bfloat16),
 * FD_SFX (f16, bf16) and FD_MMA (the mma.sync instruction for that type) defined.
 *
 * GEMM mapping (see conv_tc.cu): rows m = (n, od, oh, ow) of y, columns = output channels k,
 * reduction kk = (t0, t1, t2, c) in the filter's KRSC memory order. One block computes a
 * TC_BM x TC_BN tile of y with 8 warps (2 along m x 4 along n, each 64 x 32 = 4 x 4 mma tiles
 * of m16n8k16), stepping through the reduction TC_BK at a time in a TC_STAGES-deep cp.async
 * ring. Every thread owns the same two A rows, two B rows and one 16-byte column chunk of each
 * tile for the whole loop, so the gather state (tap and channel of its chunk) advances
 * incrementally instead of being divided out per tile.
 */

#define TC_CAT2(a, b) a##_##b
#define TC_CAT(a, b) TC_CAT2(a, b)
#define TC_K(name) TC_CAT(name, FD_SFX)

static __device__ __forceinline__ void TC_K(mma)(float *d, const unsigned *a, const unsigned *b)
{
    asm volatile(FD_MMA " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

static __global__ void __launch_bounds__(TC_THREADS)
    TC_K(conv_fwd_tc)(const tc_geom_t g, const FD_T *__restrict__ x, const FD_T *__restrict__ w,
                      FD_T *__restrict__ y, double alpha, double beta)
{
    __shared__ __align__(128) FD_T as[TC_STAGES][TC_BM * TC_BK];
    __shared__ __align__(128) FD_T bs[TC_STAGES][TC_BN * TC_BK];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int warp_m = warp & 1, warp_n = warp >> 1;
    const int64_t m0 = (int64_t)blockIdx.x * TC_BM;
    const int n0 = blockIdx.y * TC_BN;

    /* ---- the loader's fixed rows and its moving chunk position ---- */
    const int chunk = tid & 3;  /* 16-byte column chunk of the TC_BK-wide tile */
    const int lrow = tid >> 2;  /* rows lrow and lrow + 64 of the A and B tiles */
    int64_t a_base[2];          /* x offset of (n, 0, 0, 0) for each A row; -1: row past M */
    int a_i0[2], a_i1[2], a_i2[2]; /* first input position of the window, per spatial dim */
    #pragma unroll
    for (int i = 0; i < 2; i++) {
        const int64_t m = m0 + lrow + 64 * i;
        if (m < g.m) {
            int64_t r = m;
            const int o2 = (int)(r % g.out[2]);
            r /= g.out[2];
            const int o1 = (int)(r % g.out[1]);
            r /= g.out[1];
            const int o0 = (int)(r % g.out[0]);
            const int64_t n = r / g.out[0];
            a_base[i] = n * g.xs[0];
            a_i0[i] = o0 * g.stride[0] - g.pad[0];
            a_i1[i] = o1 * g.stride[1] - g.pad[1];
            a_i2[i] = o2 * g.stride[2] - g.pad[2];
        } else {
            a_base[i] = -1;
            a_i0[i] = a_i1[i] = a_i2[i] = 0;
        }
    }
    /* Reduction position of this thread's chunk in the next tile to load: kk, and kk split
     * into channel c and memory taps (f0, f1, f2). */
    int64_t kk = chunk * 8;
    int c = chunk * 8, f0 = 0, f1 = 0, f2 = 0;
    while (c >= g.c) { /* C < TC_BK: the chunk may start in a later tap */
        c -= g.c;
        if (++f2 == g.flt[2]) {
            f2 = 0;
            if (++f1 == g.flt[1]) {
                f1 = 0;
                ++f0;
            }
        }
    }

    const int ktiles = (int)((g.kred + TC_BK - 1) / TC_BK);

    /* Issues the cp.async copies of the next tile into stage st and advances the position. */
#define TC_LOAD_TILE(st)                                                                       \
    do {                                                                                       \
        const int kvalid = kk < g.kred;                                                        \
        /* logical taps: CUDNN_CONVOLUTION reads the filter flipped */                         \
        const int t0 = g.cross ? f0 : g.flt[0] - 1 - f0;                                       \
        const int t1 = g.cross ? f1 : g.flt[1] - 1 - f1;                                       \
        const int t2 = g.cross ? f2 : g.flt[2] - 1 - f2;                                       \
        _Pragma("unroll") for (int i = 0; i < 2; i++) {                                        \
            const int row = lrow + 64 * i;                                                     \
            const int i0 = a_i0[i] + t0 * g.dil[0], i1 = a_i1[i] + t1 * g.dil[1],              \
                      i2 = a_i2[i] + t2 * g.dil[2];                                            \
            const int ok = kvalid && a_base[i] >= 0 && i0 >= 0 && i0 < g.in[0] && i1 >= 0 &&   \
                           i1 < g.in[1] && i2 >= 0 && i2 < g.in[2];                            \
            const FD_T *src = ok ? x + a_base[i] + i0 * g.xs[2] + i1 * g.xs[3] +               \
                                       i2 * g.xs[4] + c                                        \
                                 : x;                                                          \
            tc_cp_async16(&as[st][tc_swz(row, chunk)], src, ok);                               \
            const int64_t kout = n0 + row;                                                     \
            const int okb = kvalid && kout < g.k;                                              \
            tc_cp_async16(&bs[st][tc_swz(row, chunk)], okb ? w + kout * g.wk + kk : w, okb);   \
        }                                                                                      \
        kk += TC_BK;                                                                           \
        c += TC_BK;                                                                            \
        while (c >= g.c) {                                                                     \
            c -= g.c;                                                                          \
            if (++f2 == g.flt[2]) {                                                            \
                f2 = 0;                                                                        \
                if (++f1 == g.flt[1]) {                                                        \
                    f1 = 0;                                                                    \
                    ++f0;                                                                      \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    } while (0)

    float acc[4][4][4];
    #pragma unroll
    for (int i = 0; i < 4; i++)
        #pragma unroll
        for (int j = 0; j < 4; j++)
            #pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    for (int s = 0; s < TC_STAGES - 1; s++) {
        if (s < ktiles)
            TC_LOAD_TILE(s);
        tc_cp_async_commit();
    }

    for (int kt = 0; kt < ktiles; kt++) {
        TC_CP_ASYNC_WAIT(TC_STAGES - 2);
        __syncthreads(); /* tile kt landed for everyone; stage (kt - 1) % S is free */
        if (kt + TC_STAGES - 1 < ktiles)
            TC_LOAD_TILE((kt + TC_STAGES - 1) % TC_STAGES);
        tc_cp_async_commit();

        const FD_T *at = as[kt % TC_STAGES], *bt = bs[kt % TC_STAGES];
        #pragma unroll
        for (int ks = 0; ks < TC_BK / 16; ks++) {
            unsigned af[4][4], bf[4][2];
            #pragma unroll
            for (int mi = 0; mi < 4; mi++) {
                const int row = warp_m * 64 + mi * 16 + (lane & 15);
                tc_ldmatrix_x4(af[mi], &at[tc_swz(row, ks * 2 + (lane >> 4))]);
            }
            #pragma unroll
            for (int np = 0; np < 2; np++) {
                const int row = warp_n * 32 + np * 16 + (lane & 7) + ((lane >> 4) << 3);
                unsigned r[4];
                tc_ldmatrix_x4(r, &bt[tc_swz(row, ks * 2 + ((lane >> 3) & 1))]);
                bf[2 * np][0] = r[0], bf[2 * np][1] = r[1];
                bf[2 * np + 1][0] = r[2], bf[2 * np + 1][1] = r[3];
            }
            #pragma unroll
            for (int mi = 0; mi < 4; mi++)
                #pragma unroll
                for (int ni = 0; ni < 4; ni++)
                    TC_K(mma)(acc[mi][ni], af[mi], bf[ni]);
        }
    }
    TC_CP_ASYNC_WAIT(0);
#undef TC_LOAD_TILE

    /* ---- epilogue: alpha * acc + beta * y, blended in double and rounded once (as ref) ---- */
    #pragma unroll
    for (int mi = 0; mi < 4; mi++)
        #pragma unroll
        for (int half = 0; half < 2; half++) {
            const int64_t m = m0 + warp_m * 64 + mi * 16 + (lane >> 2) + 8 * half;
            if (m >= g.m)
                continue;
            int64_t r = m;
            const int64_t o2 = r % g.out[2];
            r /= g.out[2];
            const int64_t o1 = r % g.out[1];
            r /= g.out[1];
            const int64_t o0 = r % g.out[0];
            const int64_t n = r / g.out[0];
            FD_T *yrow = y + n * g.ys[0] + o0 * g.ys[2] + o1 * g.ys[3] + o2 * g.ys[4];
            #pragma unroll
            for (int ni = 0; ni < 4; ni++)
                #pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int k = n0 + warp_n * 32 + ni * 8 + (lane & 3) * 2 + e;
                    if (k >= g.k)
                        continue;
                    double v = alpha * (double)acc[mi][ni][2 * half + e];
                    if (beta != 0.0)
                        v += beta * (double)tc_ld(yrow + (int64_t)k * g.ys[1]);
                    yrow[(int64_t)k * g.ys[1]] = tc_from_double_(yrow, v);
                }
        }
}

#undef TC_CAT2
#undef TC_CAT
#undef TC_K
