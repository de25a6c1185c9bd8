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

        const unsigned short *at = (const unsigned short *)as[kt % TC_STAGES];
        const unsigned short *bt = (const unsigned short *)bs[kt % TC_STAGES];
#pragma unroll
        for (int ks = 0; ks < TC_BK / 16; ks++) {
            unsigned af[4][4], bf[4][2];
            tc_frag_a(af, at, warp_m, lane, ks);
            tc_frag_b(bf, bt, warp_n, lane, ks);
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

/*
 * Backward data: dx[m, c] = sum over kk of A[m, kk] * B[kk, c] with m = (n, h, w) of dx,
 * kk = (f0, f1, f2, k) (memory taps, then output channel), A[m, kk] = dy[n, p, q, k] where
 * h + pad - t * dil = p * stride (0 unless divisible and inside dy), B[kk, c] = w[k, f, c]
 * (contiguous along c: B is staged [TC_BK][128] and read with ldmatrix.trans).
 */
static __global__ void __launch_bounds__(TC_THREADS)
    TC_K(conv_bwd_data_tc)(const tc_geom_t g, const FD_T *__restrict__ dy,
                           const FD_T *__restrict__ w, FD_T *__restrict__ dx, double alpha,
                           double beta)
{
    __shared__ __align__(128) FD_T as[TC_STAGES][TC_BM * TC_BK];
    __shared__ __align__(128) FD_T bs[TC_STAGES][TC_BK * TC_BN];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int warp_m = warp & 1, warp_n = warp >> 1;
    const int64_t m0 = (int64_t)blockIdx.x * TC_BM;
    const int n0 = blockIdx.y * TC_BN; /* first input channel c of the tile */

    /* A loader: rows lrow, lrow + 64 (positions of dx), one 8-channel chunk of dy */
    const int chunk = tid & 3, lrow = tid >> 2;
    int64_t a_base[2];
    int a_h0[2], a_h1[2], a_h2[2]; /* position + pad */
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int64_t m = m0 + lrow + 64 * i;
        if (m < g.m) {
            int64_t r = m;
            const int i2 = (int)(r % g.in[2]);
            r /= g.in[2];
            const int i1 = (int)(r % g.in[1]);
            r /= g.in[1];
            const int i0 = (int)(r % g.in[0]);
            a_base[i] = (r / g.in[0]) * g.ys[0];
            a_h0[i] = i0 + g.pad[0], a_h1[i] = i1 + g.pad[1], a_h2[i] = i2 + g.pad[2];
        } else {
            a_base[i] = -1;
            a_h0[i] = a_h1[i] = a_h2[i] = 0;
        }
    }
    int64_t kk = chunk * 8;
    int kc = chunk * 8, f0 = 0, f1 = 0, f2 = 0; /* kk = ((f0 * F1 + f1) * F2 + f2) * K + kc */
    while (kc >= g.k) {
        kc -= g.k;
        if (++f2 == g.flt[2]) {
            f2 = 0;
            if (++f1 == g.flt[1]) {
                f1 = 0;
                ++f0;
            }
        }
    }
    /* B loader: rows brow, brow + 16 of the [TC_BK][128] tile, chunk bchunk (8 channels c) */
    const int bchunk = tid & 15, brow = tid >> 4;
    int64_t b_kk[2];
    int b_k[2], b_f[2]; /* kk of the row = b_f * K + b_k (b_f: linear memory tap) */
#pragma unroll
    for (int i = 0; i < 2; i++) {
        b_kk[i] = brow + 16 * i;
        b_f[i] = (int)(b_kk[i] / g.k), b_k[i] = (int)(b_kk[i] % g.k);
    }
    const int bc = n0 + bchunk * 8;
    const int ktiles = (int)((g.kred + TC_BK - 1) / TC_BK);

#define TC_LOAD_TILE(st)                                                                       \
    do {                                                                                       \
        const int kvalid = kk < g.kred;                                                        \
        const int t0 = g.cross ? f0 : g.flt[0] - 1 - f0;                                       \
        const int t1 = g.cross ? f1 : g.flt[1] - 1 - f1;                                       \
        const int t2 = g.cross ? f2 : g.flt[2] - 1 - f2;                                       \
        _Pragma("unroll") for (int i = 0; i < 2; i++) {                                        \
            const int q0 = a_h0[i] - t0 * g.dil[0], q1 = a_h1[i] - t1 * g.dil[1],              \
                      q2 = a_h2[i] - t2 * g.dil[2];                                            \
            const int p0 = q0 / g.stride[0], p1 = q1 / g.stride[1], p2 = q2 / g.stride[2];     \
            const int ok = kvalid && a_base[i] >= 0 && q0 >= 0 && q1 >= 0 && q2 >= 0 &&        \
                           p0 * g.stride[0] == q0 && p1 * g.stride[1] == q1 &&                 \
                           p2 * g.stride[2] == q2 && p0 < g.out[0] && p1 < g.out[1] &&         \
                           p2 < g.out[2];                                                      \
            const FD_T *src = ok ? dy + a_base[i] + p0 * g.ys[2] + p1 * g.ys[3] +              \
                                       p2 * g.ys[4] + kc                                       \
                                 : dy;                                                         \
            tc_cp_async16(&as[st][tc_swz(lrow + 64 * i, chunk)], src, ok);                     \
            const int okb = b_kk[i] < g.kred && bc < g.c;                                      \
            tc_cp_async16(&bs[st][tc_swz128(brow + 16 * i, bchunk)],                           \
                          okb ? w + b_k[i] * g.wk + (int64_t)b_f[i] * g.c + bc : w, okb);      \
            b_kk[i] += TC_BK;                                                                  \
            b_k[i] += TC_BK;                                                                   \
            while (b_k[i] >= g.k) {                                                            \
                b_k[i] -= g.k;                                                                 \
                ++b_f[i];                                                                      \
            }                                                                                  \
        }                                                                                      \
        kk += TC_BK;                                                                           \
        kc += TC_BK;                                                                           \
        while (kc >= g.k) {                                                                    \
            kc -= g.k;                                                                         \
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
        __syncthreads();
        if (kt + TC_STAGES - 1 < ktiles)
            TC_LOAD_TILE((kt + TC_STAGES - 1) % TC_STAGES);
        tc_cp_async_commit();
        const unsigned short *at = (const unsigned short *)as[kt % TC_STAGES];
        const unsigned short *bt = (const unsigned short *)bs[kt % TC_STAGES];
#pragma unroll
        for (int ks = 0; ks < TC_BK / 16; ks++) {
            unsigned af[4][4], bf[4][2];
            tc_frag_a(af, at, warp_m, lane, ks);
            tc_frag_b_trans(bf, bt, warp_n, lane, ks);
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int ni = 0; ni < 4; ni++)
                    TC_K(mma)(acc[mi][ni], af[mi], bf[ni]);
        }
    }
    TC_CP_ASYNC_WAIT(0);
#undef TC_LOAD_TILE

#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int64_t m = m0 + warp_m * 64 + mi * 16 + (lane >> 2) + 8 * half;
            if (m >= g.m)
                continue;
            int64_t r = m;
            const int64_t i2 = r % g.in[2];
            r /= g.in[2];
            const int64_t i1 = r % g.in[1];
            r /= g.in[1];
            const int64_t i0 = r % g.in[0];
            const int64_t n = r / g.in[0];
            FD_T *row = dx + n * g.xs[0] + i0 * g.xs[2] + i1 * g.xs[3] + i2 * g.xs[4];
#pragma unroll
            for (int ni = 0; ni < 4; ni++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int c = n0 + warp_n * 32 + ni * 8 + (lane & 3) * 2 + e;
                    if (c >= g.c)
                        continue;
                    double v = alpha * (double)acc[mi][ni][2 * half + e];
                    if (beta != 0.0)
                        v += beta * (double)tc_ld(row + (int64_t)c * g.xs[1]);
                    row[(int64_t)c * g.xs[1]] = tc_from_double_(row, v);
                }
        }
}

/*
 * Backward filter, one split of the reduction: part[z][k, j] = sum over m in split z of
 * A[k, m] * B[m, j] with k = output channel, j = (f, c) (the KRSC filter's inner index),
 * m = (n, p, q) of dy; A[k, m] = dy[n, p, q, k] (staged [TC_BK][128 k], ldmatrix.trans),
 * B[m, j] = x[n, p * s - pad + t * dil, c] (staged [TC_BK][128 j], ldmatrix.trans). The float
 * partial tiles go to the workspace; conv_bwd_filter_tc_reduce sums the splits in order.
 */
static __global__ void __launch_bounds__(TC_THREADS)
    TC_K(conv_bwd_filter_tc)(const tc_geom_t g, const FD_T *__restrict__ x,
                             const FD_T *__restrict__ dy, float *__restrict__ part, int64_t split_len)
{
    __shared__ __align__(128) FD_T as[TC_STAGES][TC_BK * TC_BM];
    __shared__ __align__(128) FD_T bs[TC_STAGES][TC_BK * TC_BN];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int warp_m = warp & 1, warp_n = warp >> 1;
    const int k0 = blockIdx.y * TC_BM;                      /* output channels */
    const int64_t j0 = (int64_t)blockIdx.x * TC_BN;         /* (f, c) columns */
    const int64_t mbeg = (int64_t)blockIdx.z * split_len;   /* this split's reduction range */
    const int64_t mend = mbeg + split_len < g.m ? mbeg + split_len : g.m;

    /* Both loaders: rows lr, lr + 16 of the tile (reduction index m), chunk lc */
    const int lc = tid & 15, lr = tid >> 4;
    int64_t rm[2];
    int rq0[2], rq1[2], rq2[2];
    int64_t rn[2];
#pragma unroll
    for (int i = 0; i < 2; i++) {
        rm[i] = mbeg + lr + 16 * i;
        int64_t r = rm[i];
        rq2[i] = (int)(r % g.out[2]);
        r /= g.out[2];
        rq1[i] = (int)(r % g.out[1]);
        r /= g.out[1];
        rq0[i] = (int)(r % g.out[0]);
        rn[i] = r / g.out[0];
    }
    const int ak = k0 + lc * 8; /* A chunk: 8 output channels */
    /* B chunk: 8 input channels of one tap */
    const int64_t bj = j0 + lc * 8;
    const int bjvalid = bj < g.kred;
    const int bc = bjvalid ? (int)(bj % g.c) : 0;
    int bf_lin = bjvalid ? (int)(bj / g.c) : 0;
    const int bf2 = bf_lin % g.flt[2], bf1 = (bf_lin / g.flt[2]) % g.flt[1],
              bf0 = bf_lin / (g.flt[2] * g.flt[1]);
    const int bt0 = g.cross ? bf0 : g.flt[0] - 1 - bf0;
    const int bt1 = g.cross ? bf1 : g.flt[1] - 1 - bf1;
    const int bt2 = g.cross ? bf2 : g.flt[2] - 1 - bf2;
    const int ktiles = (int)((mend - mbeg + TC_BK - 1) / TC_BK);

#define TC_LOAD_TILE(st)                                                                       \
    do {                                                                                       \
        _Pragma("unroll") for (int i = 0; i < 2; i++) {                                        \
            const int mvalid = rm[i] < mend;                                                   \
            const int oka = mvalid && ak < g.k;                                                \
            const FD_T *srca = oka ? dy + rn[i] * g.ys[0] + rq0[i] * g.ys[2] +                  \
                                         rq1[i] * g.ys[3] + rq2[i] * g.ys[4] + ak              \
                                   : dy;                                                       \
            tc_cp_async16(&as[st][tc_swz128(lr + 16 * i, lc)], srca, oka);                     \
            const int h0 = rq0[i] * g.stride[0] - g.pad[0] + bt0 * g.dil[0];                   \
            const int h1 = rq1[i] * g.stride[1] - g.pad[1] + bt1 * g.dil[1];                   \
            const int h2 = rq2[i] * g.stride[2] - g.pad[2] + bt2 * g.dil[2];                   \
            const int okb = mvalid && bjvalid && h0 >= 0 && h0 < g.in[0] && h1 >= 0 &&         \
                            h1 < g.in[1] && h2 >= 0 && h2 < g.in[2];                           \
            const FD_T *srcb = okb ? x + rn[i] * g.xs[0] + h0 * g.xs[2] + h1 * g.xs[3] +       \
                                         h2 * g.xs[4] + bc                                     \
                                   : x;                                                        \
            tc_cp_async16(&bs[st][tc_swz128(lr + 16 * i, lc)], srcb, okb);                     \
            rm[i] += TC_BK;                                                                    \
            rq2[i] += TC_BK;                                                                   \
            while (rq2[i] >= g.out[2]) {                                                       \
                rq2[i] -= g.out[2];                                                            \
                if (++rq1[i] == g.out[1]) {                                                    \
                    rq1[i] = 0;                                                                \
                    if (++rq0[i] == g.out[0]) {                                                \
                        rq0[i] = 0;                                                            \
                        ++rn[i];                                                               \
                    }                                                                          \
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
        __syncthreads();
        if (kt + TC_STAGES - 1 < ktiles)
            TC_LOAD_TILE((kt + TC_STAGES - 1) % TC_STAGES);
        tc_cp_async_commit();
        const unsigned short *at = (const unsigned short *)as[kt % TC_STAGES];
        const unsigned short *bt = (const unsigned short *)bs[kt % TC_STAGES];
#pragma unroll
        for (int ks = 0; ks < TC_BK / 16; ks++) {
            unsigned af[4][4], bf[4][2];
            tc_frag_a_trans(af, at, warp_m, lane, ks);
            tc_frag_b_trans(bf, bt, warp_n, lane, ks);
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int ni = 0; ni < 4; ni++)
                    TC_K(mma)(acc[mi][ni], af[mi], bf[ni]);
        }
    }
    TC_CP_ASYNC_WAIT(0);
#undef TC_LOAD_TILE

    float *out = part + (int64_t)blockIdx.z * g.k * g.kred;
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int k = k0 + warp_m * 64 + mi * 16 + (lane >> 2) + 8 * half;
            if (k >= g.k)
                continue;
#pragma unroll
            for (int ni = 0; ni < 4; ni++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int64_t j = j0 + warp_n * 32 + ni * 8 + (lane & 3) * 2 + e;
                    if (j < g.kred)
                        out[(int64_t)k * g.kred + j] = acc[mi][ni][2 * half + e];
                }
        }
}

/* dw[k, j] = alpha * (sum of the splits, in split order) + beta * dw[k, j]. */
static __global__ void TC_K(conv_bwd_filter_tc_reduce)(const tc_geom_t g, const float *__restrict__ part,
                                                       int splits, FD_T *__restrict__ dw, double alpha,
                                                       double beta)
{
    const int64_t total = (int64_t)g.k * g.kred;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int z = 0; z < splits; z++)
            sum += part[(int64_t)z * total + e];
        const int64_t k = e / g.kred, j = e % g.kred;
        FD_T *p = dw + k * g.wk + j;
        double v = alpha * (double)sum;
        if (beta != 0.0)
            v += beta * (double)tc_ld(p);
        *p = tc_from_double_(p, v);
    }
}

#undef TC_CAT2
#undef TC_CAT
#undef TC_K
