/* SPDX-License-Identifier: MIT */
/*
 * conv_tc_kernels.cuh - the implicit-GEMM tensor-core kernels of conv_tc.cu (included once,
 * after its primitives), written once for every storage type T through tc_traits<T>: HALF and
 * BFLOAT16 (mma m16n8k16, 8 elements per 16-byte chunk) and FLOAT (TF32 mma m16n8k8, 4 per
 * chunk, operands rounded with cvt.rna as they leave shared memory).
 *
 * Every tile stage is 8 KiB whatever T is: TC_BK<T> = 4 chunks = 64 bytes of reduction per
 * row (32 16-bit elements or 16 floats), and a row of one mma k-step is 32 bytes (k16 or k8),
 * so A/B fragment byte layouts coincide and one ldmatrix address pattern serves both element
 * widths for the row-major tiles. Tiles whose reduction index runs along rows ([TC_BK][128]:
 * B of bwd data, A and B of bwd filter) are read with ldmatrix.trans for 16-bit data and with
 * 32-bit shared loads for floats (ldmatrix.trans moves b16 only), each with its own swizzle.
 *
 * A block computes a TM x TN tile (tc_tile: 128 x 128 with 8 warps, 2 along m x 4 along n,
 * each 64 x 32 = 4 x 4 mma tiles; or, where the GEMM's N or M is at most 32, 128 x 32 / 32 x 128
 * with 4 warps of 32 x 32 = 2 x 4 mma tiles) through the shared main loop tc_mainloop
 * (TC_STAGES-deep cp.async ring); the directions differ only in their loader (a struct whose
 * load() issues one stage's copies and advances its gather position incrementally, never
 * dividing per tile) and epilogue. A narrow tile runs the same mma on the same operands in the
 * same reduction order as the 128 x 128 one: each output element gets the same bits.
 */

/* ---- tile shapes ------------------------------------------------------------------------------
 * TM x TN per block, NT threads = NT / 32 warps, TN / 32 of them along n and the rest along m,
 * each warp (16 * MI) x 32. tc_wide serves every direction; tc_narrow_n the forward and backward
 * data GEMMs with N (K, C) <= 32, where 128 columns would be three quarters padding;
 * tc_narrow_m the backward filter with M = K <= 32. */
template <int TM_, int TN_, int NT_> struct tc_tile {
    enum {
        TM = TM_,
        TN = TN_,
        NT = NT_,
        WGM = NT_ / 32 / (TN_ / 32), /* warps along m */
        MI = TM_ / WGM / 16
    };
};
typedef tc_tile<128, 128, 256> tc_wide;
typedef tc_tile<128, 32, 128> tc_narrow_n;
typedef tc_tile<32, 128, 128> tc_narrow_m;

/* ---- element traits -------------------------------------------------------------------------- */

template <typename T> struct tc_traits;

template <> struct tc_traits<__half> {
    enum { EPC = 8 }; /* elements per 16-byte chunk */
    static __device__ __forceinline__ void mma(float *d, const unsigned *a, const unsigned *b)
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};

template <> struct tc_traits<__nv_bfloat16> {
    enum { EPC = 8 };
    static __device__ __forceinline__ void mma(float *d, const unsigned *a, const unsigned *b)
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};

template <> struct tc_traits<float> {
    enum { EPC = 4 };
    static __device__ __forceinline__ void mma(float *d, const unsigned *a, const unsigned *b)
    {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};

/* Elements of the reduction per tile row (64 bytes). */
#define TC_BK(T) (4 * tc_traits<T>::EPC)

/* ---- shared-memory addressing (element indices) ---------------------------------------------- */

/* Element of (row, 16-byte chunk) of a [128][TC_BK] tile, the chunk XOR-swizzled by row / 2 so
 * the 8 rows of one ldmatrix phase (two rows per 128-byte bank line) fall in distinct banks. */
template <typename T> static __device__ __forceinline__ int tc_swz(int row, int chunk)
{
    return row * TC_BK(T) + (chunk ^ ((row >> 1) & 3)) * tc_traits<T>::EPC;
}

/* Element of (row, chunk) of a [TC_BK][W] tile (reduction index along rows; W = 128 or 32).
 * 16-bit: one ldmatrix.trans phase reads one chunk of 8 consecutive rows; rows of 256 bytes
 * (W 128) XOR the chunk by row mod 8, rows of 64 bytes (W 32: two rows a 128-byte bank line) by
 * (row / 2) mod 4, so the 8 fall in distinct banks. Float: a warp's fragment load reads 4
 * consecutive rows (k = lane & 3) x 8 consecutive columns (lane >> 2), i.e. two chunks per row;
 * XOR by 2 * (row mod 4) puts those 8 chunks in 8 distinct bank quads (rows of 128 or 512
 * bytes). */
template <typename T, int W> static __device__ __forceinline__ int tc_swzt(int row, int chunk)
{
    if (tc_traits<T>::EPC == 8)
        return row * W + ((chunk ^ (W >= 64 ? (row & 7) : ((row >> 1) & 3))) << 3);
    return row * W + ((chunk ^ ((row & 3) << 1)) << 2);
}

/* ---- mma fragments from shared tiles (ks: which 32-byte half of the tile's rows) ------------ */

/* TF32 operands: round each float to 10 mantissa bits, to nearest (as cuBLAS does). */
template <typename T> static __device__ __forceinline__ void tc_to_mma(unsigned *r, int n)
{
    if (tc_traits<T>::EPC == 4)
#pragma unroll
        for (int i = 0; i < n; i++)
            r[i] = tc_tf32(r[i]);
}

/* A, MI m16 tiles of a warp, from [TM rows of A][TC_BK] (row-major A: fwd, bwd data). One
 * ldmatrix 8x8 b16 matrix is 8 rows x 16 bytes; lane l receives the 32-bit word (l / 4, l % 4),
 * which is (row g, k pair t) of f16 and (row g, k t) of tf32: the same registers a0..a3. */
template <typename T, int MI>
static __device__ __forceinline__ void tc_frag_a(unsigned (*af)[4], const T *t, int wm, int lane, int ks)
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++) {
        tc_ldmatrix_x4(af[mi], t + tc_swz<T>(wm * 16 * MI + mi * 16 + (lane & 15), ks * 2 + (lane >> 4)));
        tc_to_mma<T>(af[mi], 4);
    }
}

/* A from [TC_BK][W rows of A] (A transposed in memory: bwd filter's dy). */
template <typename T, int MI, int W>
static __device__ __forceinline__ void tc_frag_a_trans(unsigned (*af)[4], const T *t, int wm, int lane,
                                                       int ks)
{
    if (tc_traits<T>::EPC == 8) {
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
            tc_ldmatrix_x4_trans(af[mi], t + tc_swzt<T, W>(ks * 16 + (lane & 7) + ((lane >> 4) << 3),
                                                           (wm * 16 * MI + mi * 16) / 8 + ((lane >> 3) & 1)));
    } else {
        /* a0..a3 = (m g, k q), (m g + 8, k q), (m g, k q + 4), (m g + 8, k q + 4) */
        const int g = lane >> 2, q = lane & 3, k = ks * 8 + q;
        const unsigned *u = (const unsigned *)t;
#pragma unroll
        for (int mi = 0; mi < MI; mi++) {
            const int m = wm * 16 * MI + mi * 16 + g;
            af[mi][0] = u[tc_swzt<T, W>(k, m >> 2) + (m & 3)];
            af[mi][1] = u[tc_swzt<T, W>(k, (m + 8) >> 2) + (m & 3)];
            af[mi][2] = u[tc_swzt<T, W>(k + 4, m >> 2) + (m & 3)];
            af[mi][3] = u[tc_swzt<T, W>(k + 4, (m + 8) >> 2) + (m & 3)];
            tc_to_mma<T>(af[mi], 4);
        }
    }
}

/* B, 4 n8 tiles of a warp, from [128 columns of B][TC_BK] (fwd: the KRSC filter rows). */
template <typename T>
static __device__ __forceinline__ void tc_frag_b(unsigned (*bf)[2], const T *t, int wn, int lane, int ks)
{
#pragma unroll
    for (int np = 0; np < 2; np++) {
        unsigned r[4];
        tc_ldmatrix_x4(r, t + tc_swz<T>(wn * 32 + np * 16 + (lane & 7) + ((lane >> 4) << 3),
                                        ks * 2 + ((lane >> 3) & 1)));
        tc_to_mma<T>(r, 4);
        bf[2 * np][0] = r[0], bf[2 * np][1] = r[1];
        bf[2 * np + 1][0] = r[2], bf[2 * np + 1][1] = r[3];
    }
}

/* B from [TC_BK][W columns] (bwd data: filter rows along c; bwd filter: x along c). */
template <typename T, int W>
static __device__ __forceinline__ void tc_frag_b_trans(unsigned (*bf)[2], const T *t, int wn, int lane,
                                                       int ks)
{
    if (tc_traits<T>::EPC == 8) {
#pragma unroll
        for (int np = 0; np < 2; np++) {
            unsigned r[4];
            tc_ldmatrix_x4_trans(r, t + tc_swzt<T, W>(ks * 16 + (lane & 7) + (((lane >> 3) & 1) << 3),
                                                      (wn * 32 + np * 16) / 8 + (lane >> 4)));
            bf[2 * np][0] = r[0], bf[2 * np][1] = r[1];
            bf[2 * np + 1][0] = r[2], bf[2 * np + 1][1] = r[3];
        }
    } else {
        /* b0, b1 = (k q, n g), (k q + 4, n g) */
        const int g = lane >> 2, q = lane & 3, k = ks * 8 + q;
        const unsigned *u = (const unsigned *)t;
#pragma unroll
        for (int ni = 0; ni < 4; ni++) {
            const int n = wn * 32 + ni * 8 + g;
            bf[ni][0] = u[tc_swzt<T, W>(k, n >> 2) + (n & 3)];
            bf[ni][1] = u[tc_swzt<T, W>(k + 4, n >> 2) + (n & 3)];
            tc_to_mma<T>(bf[ni], 2);
        }
    }
}

/* ---- the shared main loop ------------------------------------------------------------------- */

/* acc[mi][ni] += the warp's (16 * MI) x 32 slice of A x B over ktiles reduction tiles.
 * L::load(a, b) issues the cp.async copies of the loader's next tile into stage tiles a and b.
 * A_T / B_T: the operand is staged [TC_BK][TM] / [TC_BK][TN] (reduction along rows). */
template <typename T, int A_T, int B_T, typename CFG, typename L>
static __device__ __forceinline__ void tc_mainloop(L &ld, int ktiles, T *as, T *bs, float (*acc)[4][4],
                                                   int wm, int wn, int lane)
{
    enum { MI = CFG::MI, AST = CFG::TM * TC_BK(T), BST = CFG::TN * TC_BK(T) };
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    for (int s = 0; s < TC_STAGES - 1; s++) {
        if (s < ktiles)
            ld.load(as + s * AST, bs + s * BST);
        tc_cp_async_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        TC_CP_ASYNC_WAIT(TC_STAGES - 2);
        __syncthreads(); /* tile kt landed for everyone; stage (kt - 1) % S is free */
        if (kt + TC_STAGES - 1 < ktiles) {
            const int st = (kt + TC_STAGES - 1) % TC_STAGES;
            ld.load(as + st * AST, bs + st * BST);
        }
        tc_cp_async_commit();
        const T *at = as + (kt % TC_STAGES) * AST;
        const T *bt = bs + (kt % TC_STAGES) * BST;
#pragma unroll
        for (int ks = 0; ks < 2; ks++) {
            unsigned af[MI][4], bf[4][2];
            if (A_T)
                tc_frag_a_trans<T, MI, CFG::TM>(af, at, wm, lane, ks);
            else
                tc_frag_a<T, MI>(af, at, wm, lane, ks);
            if (B_T)
                tc_frag_b_trans<T, CFG::TN>(bf, bt, wn, lane, ks);
            else
                tc_frag_b<T>(bf, bt, wn, lane, ks);
#pragma unroll
            for (int mi = 0; mi < MI; mi++)
#pragma unroll
                for (int ni = 0; ni < 4; ni++)
                    tc_traits<T>::mma(acc[mi][ni], af[mi], bf[ni]);
        }
    }
    TC_CP_ASYNC_WAIT(0);
}

/* The reduction position (channel c of the chunk, memory taps f0, f1, f2) after c grew: carries
 * whole channel runs of length cn into the taps. */
static __device__ __forceinline__ void tc_carry(int &c, int cn, int &f0, int &f1, int &f2, const int *flt)
{
    while (c >= cn) {
        c -= cn;
        if (++f2 == flt[2]) {
            f2 = 0;
            if (++f1 == flt[1]) {
                f1 = 0;
                ++f0;
            }
        }
    }
}

/* alpha * acc + beta * out, blended in double and rounded once (as ref), for the row-major
 * output tiles of fwd (out = y, rows (n, od, oh, ow), columns k) and bwd data (out = dx, rows
 * (n, id, ih, iw), columns c): sp the spatial sizes of out, st its strides, nch its channels. */
template <typename T, int MI>
static __device__ __forceinline__ void tc_store_tile(float (*acc)[4][4], T *out, int64_t mrows,
                                                     const int *sp, const int64_t *st, int nch,
                                                     int64_t m0, int n0, int wm, int wn, int lane,
                                                     double alpha, double beta)
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int64_t m = m0 + wm * 16 * MI + mi * 16 + (lane >> 2) + 8 * half;
            if (m >= mrows)
                continue;
            int64_t r = m;
            const int64_t o2 = r % sp[2];
            r /= sp[2];
            const int64_t o1 = r % sp[1];
            r /= sp[1];
            const int64_t o0 = r % sp[0];
            const int64_t n = r / sp[0];
            T *row = out + n * st[0] + o0 * st[2] + o1 * st[3] + o2 * st[4];
#pragma unroll
            for (int ni = 0; ni < 4; ni++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int ch = n0 + wn * 32 + ni * 8 + (lane & 3) * 2 + e;
                    if (ch >= nch)
                        continue;
                    double v = alpha * (double)acc[mi][ni][2 * half + e];
                    if (beta != 0.0)
                        v += beta * (double)tc_ld(row + (int64_t)ch * st[1]);
                    row[(int64_t)ch * st[1]] = tc_from_double_(row, v);
                }
        }
}

/* The forward and backward data blocks after their loader: the main loop over kred reduction
 * elements (B staged [TC_BK][TN] when B_T), then the row-major output tile stored. */
template <typename T, typename CFG, int B_T, typename L>
static __device__ __forceinline__ void tc_rows_out(L &ld, int64_t kred, T *out, int64_t mrows, const int *sp,
                                                   const int64_t *st, int nch, int64_t m0, int n0, double alpha,
                                                   double beta)
{
    __shared__ __align__(128) T as[TC_STAGES * CFG::TM * TC_BK(T)];
    __shared__ __align__(128) T bs[TC_STAGES * CFG::TN * TC_BK(T)];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm = warp % CFG::WGM, wn = warp / CFG::WGM;
    float acc[CFG::MI][4][4];
    tc_mainloop<T, 0, B_T, CFG>(ld, (int)((kred + TC_BK(T) - 1) / TC_BK(T)), as, bs, acc, wm, wn, lane);
    tc_store_tile<T, CFG::MI>(acc, out, mrows, sp, st, nch, m0, n0, wm, wn, lane, alpha, beta);
}

/* ---- forward ----------------------------------------------------------------------------------
 * y[m, k] = sum over kk of A[m, kk] * B[kk, k]; m = (n, od, oh, ow), kk = (f0, f1, f2, c) in
 * the KRSC filter's order; A gathered from x (zero outside), B[kk, k] = w[k, kk] staged
 * [TN k][TC_BK]. Each thread owns one 16-byte chunk of A rows lrow + RS * i (i < AP) and of B
 * rows lrow + RS * i (i < BP), RS = NT / 4. */
template <typename T, typename CFG> struct tc_fwd_loader {
    enum { RS = CFG::NT / 4, AP = CFG::TM / RS, BP = CFG::TN / RS };
    const tc_geom_t &g;
    const T *x, *w;
    int n0, chunk, lrow;
    int64_t a_base[AP];               /* x offset of (n, 0, 0, 0) for each A row; -1: row past M */
    int a_i0[AP], a_i1[AP], a_i2[AP]; /* first input position of the window, per spatial dim */
    int64_t kk;                       /* reduction index of this thread's chunk in the next tile */
    int c, f0, f1, f2;                /* kk split into channel and memory taps */

    __device__ __forceinline__ tc_fwd_loader(const tc_geom_t &g_, const T *x_, const T *w_, int64_t m0,
                                             int n0_, int tid)
        : g(g_), x(x_), w(w_), n0(n0_), chunk(tid & 3), lrow(tid >> 2)
    {
#pragma unroll
        for (int i = 0; i < AP; i++) {
            const int64_t m = m0 + lrow + RS * i;
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
        kk = chunk * tc_traits<T>::EPC;
        c = chunk * tc_traits<T>::EPC, f0 = f1 = f2 = 0;
        tc_carry(c, g.c, f0, f1, f2, g.flt); /* C < TC_BK: the chunk may start in a later tap */
    }

    __device__ __forceinline__ void load(T *as, T *bs)
    {
        const int kvalid = kk < g.kred;
        /* logical taps: CUDNN_CONVOLUTION reads the filter flipped */
        const int t0 = g.cross ? f0 : g.flt[0] - 1 - f0;
        const int t1 = g.cross ? f1 : g.flt[1] - 1 - f1;
        const int t2 = g.cross ? f2 : g.flt[2] - 1 - f2;
#pragma unroll
        for (int i = 0; i < AP; i++) {
            const int row = lrow + RS * i;
            const int i0 = a_i0[i] + t0 * g.dil[0], i1 = a_i1[i] + t1 * g.dil[1],
                      i2 = a_i2[i] + t2 * g.dil[2];
            const int ok = kvalid && a_base[i] >= 0 && i0 >= 0 && i0 < g.in[0] && i1 >= 0 &&
                           i1 < g.in[1] && i2 >= 0 && i2 < g.in[2];
            const T *src = ok ? x + a_base[i] + i0 * g.xs[2] + i1 * g.xs[3] + i2 * g.xs[4] + c : x;
            tc_cp_async16(&as[tc_swz<T>(row, chunk)], src, ok);
        }
#pragma unroll
        for (int i = 0; i < BP; i++) {
            const int row = lrow + RS * i;
            const int64_t kout = n0 + row;
            const int okb = kvalid && kout < g.k;
            tc_cp_async16(&bs[tc_swz<T>(row, chunk)], okb ? w + kout * g.wk + kk : w, okb);
        }
        kk += TC_BK(T);
        c += TC_BK(T);
        tc_carry(c, g.c, f0, f1, f2, g.flt);
    }
};

template <typename T, typename CFG>
static __global__ void __launch_bounds__(CFG::NT)
    conv_fwd_tc(const __grid_constant__ tc_geom_t g, const T *__restrict__ x, const T *__restrict__ w,
                T *__restrict__ y, double alpha, double beta)
{
    const int64_t m0 = (int64_t)blockIdx.x * CFG::TM;
    const int n0 = blockIdx.y * CFG::TN;
    tc_fwd_loader<T, CFG> ld(g, x, w, m0, n0, threadIdx.x);
    tc_rows_out<T, CFG, 0>(ld, g.kred, y, g.m, g.out, g.ys, g.k, m0, n0, alpha, beta);
}

/* ---- backward data ----------------------------------------------------------------------------
 * dx[m, c] = sum over kk of A[m, kk] * B[kk, c] with m = (n, h, w) of dx, kk = (f0, f1, f2, k)
 * (memory taps, then output channel), A[m, kk] = dy[n, p, q, k] where h + pad - t * dil =
 * p * stride (0 unless divisible and inside dy), B[kk, c] = w[k, f, c], contiguous along c:
 * staged [TC_BK][TN c]. A: rows lrow + AR * i (i < AP) and one chunk of k per thread; B: rows
 * brow + RSTEP * i (i < BP; CPR chunks per TN-element row) and one chunk of c. */
template <typename T, typename CFG> struct tc_bwd_data_loader {
    enum {
        AR = CFG::NT / 4,
        AP = CFG::TM / AR,
        CPR = CFG::TN / tc_traits<T>::EPC,
        RSTEP = CFG::NT / CPR,
        BP = TC_BK(T) / RSTEP
    };
    const tc_geom_t &g;
    const T *dy, *w;
    int chunk, lrow, bchunk, brow, bc;
    int64_t a_base[AP];
    int a_h0[AP], a_h1[AP], a_h2[AP]; /* position + pad */
    int64_t kk;
    int kc, f0, f1, f2; /* kk = ((f0 * F1 + f1) * F2 + f2) * K + kc */
    int64_t b_kk[BP];
    int b_k[BP], b_f[BP]; /* kk of the B row = b_f * K + b_k (b_f: linear memory tap) */

    __device__ __forceinline__ tc_bwd_data_loader(const tc_geom_t &g_, const T *dy_, const T *w_,
                                                  int64_t m0, int n0, int tid)
        : g(g_), dy(dy_), w(w_), chunk(tid & 3), lrow(tid >> 2), bchunk(tid % CPR), brow(tid / CPR)
    {
#pragma unroll
        for (int i = 0; i < AP; i++) {
            const int64_t m = m0 + lrow + AR * i;
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
        kk = chunk * tc_traits<T>::EPC;
        kc = chunk * tc_traits<T>::EPC, f0 = f1 = f2 = 0;
        tc_carry(kc, g.k, f0, f1, f2, g.flt);
#pragma unroll
        for (int i = 0; i < BP; i++) {
            b_kk[i] = brow + RSTEP * i;
            b_f[i] = (int)(b_kk[i] / g.k), b_k[i] = (int)(b_kk[i] % g.k);
        }
        bc = n0 + bchunk * tc_traits<T>::EPC;
    }

    __device__ __forceinline__ void load(T *as, T *bs)
    {
        const int kvalid = kk < g.kred;
        const int t0 = g.cross ? f0 : g.flt[0] - 1 - f0;
        const int t1 = g.cross ? f1 : g.flt[1] - 1 - f1;
        const int t2 = g.cross ? f2 : g.flt[2] - 1 - f2;
#pragma unroll
        for (int i = 0; i < AP; i++) {
            const int q0 = a_h0[i] - t0 * g.dil[0], q1 = a_h1[i] - t1 * g.dil[1],
                      q2 = a_h2[i] - t2 * g.dil[2];
            const int p0 = q0 / g.stride[0], p1 = q1 / g.stride[1], p2 = q2 / g.stride[2];
            const int ok = kvalid && a_base[i] >= 0 && q0 >= 0 && q1 >= 0 && q2 >= 0 &&
                           p0 * g.stride[0] == q0 && p1 * g.stride[1] == q1 &&
                           p2 * g.stride[2] == q2 && p0 < g.out[0] && p1 < g.out[1] && p2 < g.out[2];
            const T *src = ok ? dy + a_base[i] + p0 * g.ys[2] + p1 * g.ys[3] + p2 * g.ys[4] + kc : dy;
            tc_cp_async16(&as[tc_swz<T>(lrow + AR * i, chunk)], src, ok);
        }
#pragma unroll
        for (int i = 0; i < BP; i++) {
            const int okb = b_kk[i] < g.kred && bc < g.c;
            tc_cp_async16(&bs[tc_swzt<T, CFG::TN>(brow + RSTEP * i, bchunk)],
                          okb ? w + b_k[i] * g.wk + (int64_t)b_f[i] * g.c + bc : w, okb);
            b_kk[i] += TC_BK(T);
            b_k[i] += TC_BK(T);
            while (b_k[i] >= g.k) {
                b_k[i] -= g.k;
                ++b_f[i];
            }
        }
        kk += TC_BK(T);
        kc += TC_BK(T);
        tc_carry(kc, g.k, f0, f1, f2, g.flt);
    }
};

template <typename T, typename CFG>
static __global__ void __launch_bounds__(CFG::NT)
    conv_bwd_data_tc(const __grid_constant__ tc_geom_t g, const T *__restrict__ dy,
                     const T *__restrict__ w, T *__restrict__ dx, double alpha, double beta)
{
    const int64_t m0 = (int64_t)blockIdx.x * CFG::TM;
    const int n0 = blockIdx.y * CFG::TN; /* first input channel c of the tile */
    tc_bwd_data_loader<T, CFG> ld(g, dy, w, m0, n0, threadIdx.x);
    tc_rows_out<T, CFG, 1>(ld, g.kred, dx, g.m, g.in, g.xs, g.c, m0, n0, alpha, beta);
}

/* ---- backward filter --------------------------------------------------------------------------
 * One split of the reduction: part[z][k, j] = sum over m in split z of A[k, m] * B[m, j] with
 * k = output channel, j = (f, c) (the KRSC filter's inner index), m = (n, p, q) of dy;
 * A[k, m] = dy[n, p, q, k] and B[m, j] = x[n, p * s - pad + t * dil, c], staged [TC_BK m][TM]
 * and [TC_BK m][TN] (TM <= TN). Each thread: rows lr + RSTEP * i (i < P) of the tile, chunk lc
 * of B's CPR and, when lc < CPRA, of A's CPRA chunks per row. The float partial tiles go to the
 * workspace; conv_bwd_filter_tc_reduce sums the splits in order, or (ctr != NULL, splitk.cuh)
 * the last block of each tile does, in the same order. */
template <typename T, typename CFG> struct tc_bwd_filter_loader {
    enum {
        CPR = CFG::TN / tc_traits<T>::EPC,
        CPRA = CFG::TM / tc_traits<T>::EPC,
        RSTEP = CFG::NT / CPR,
        P = TC_BK(T) / RSTEP
    };
    const tc_geom_t &g;
    const T *x, *dy;
    int64_t mend;
    int lr, lc, ak, bjvalid, bc, bt0, bt1, bt2;
    int64_t rm[P], rn[P];
    int rq0[P], rq1[P], rq2[P];

    __device__ __forceinline__ tc_bwd_filter_loader(const tc_geom_t &g_, const T *x_, const T *dy_,
                                                    int64_t mbeg, int64_t mend_, int k0, int64_t j0,
                                                    int tid)
        : g(g_), x(x_), dy(dy_), mend(mend_), lr(tid / CPR), lc(tid % CPR)
    {
#pragma unroll
        for (int i = 0; i < P; i++) {
            rm[i] = mbeg + lr + RSTEP * i;
            int64_t r = rm[i];
            rq2[i] = (int)(r % g.out[2]);
            r /= g.out[2];
            rq1[i] = (int)(r % g.out[1]);
            r /= g.out[1];
            rq0[i] = (int)(r % g.out[0]);
            rn[i] = r / g.out[0];
        }
        ak = k0 + lc * tc_traits<T>::EPC; /* A chunk: output channels */
        const int64_t bj = j0 + lc * tc_traits<T>::EPC; /* B chunk: input channels of one tap */
        bjvalid = bj < g.kred;
        bc = bjvalid ? (int)(bj % g.c) : 0;
        const int bf_lin = bjvalid ? (int)(bj / g.c) : 0;
        const int bf2 = bf_lin % g.flt[2], bf1 = (bf_lin / g.flt[2]) % g.flt[1],
                  bf0 = bf_lin / (g.flt[2] * g.flt[1]);
        bt0 = g.cross ? bf0 : g.flt[0] - 1 - bf0;
        bt1 = g.cross ? bf1 : g.flt[1] - 1 - bf1;
        bt2 = g.cross ? bf2 : g.flt[2] - 1 - bf2;
    }

    __device__ __forceinline__ void load(T *as, T *bs)
    {
#pragma unroll
        for (int i = 0; i < P; i++) {
            const int mvalid = rm[i] < mend;
            if (CPRA == CPR || lc < CPRA) {
                const int oka = mvalid && ak < g.k;
                const T *srca = oka ? dy + rn[i] * g.ys[0] + rq0[i] * g.ys[2] + rq1[i] * g.ys[3] +
                                          rq2[i] * g.ys[4] + ak
                                    : dy;
                tc_cp_async16(&as[tc_swzt<T, CFG::TM>(lr + RSTEP * i, lc)], srca, oka);
            }
            const int h0 = rq0[i] * g.stride[0] - g.pad[0] + bt0 * g.dil[0];
            const int h1 = rq1[i] * g.stride[1] - g.pad[1] + bt1 * g.dil[1];
            const int h2 = rq2[i] * g.stride[2] - g.pad[2] + bt2 * g.dil[2];
            const int okb = mvalid && bjvalid && h0 >= 0 && h0 < g.in[0] && h1 >= 0 &&
                            h1 < g.in[1] && h2 >= 0 && h2 < g.in[2];
            const T *srcb = okb ? x + rn[i] * g.xs[0] + h0 * g.xs[2] + h1 * g.xs[3] + h2 * g.xs[4] + bc
                                : x;
            tc_cp_async16(&bs[tc_swzt<T, CFG::TN>(lr + RSTEP * i, lc)], srcb, okb);
            rm[i] += TC_BK(T);
            rq2[i] += TC_BK(T);
            while (rq2[i] >= g.out[2]) {
                rq2[i] -= g.out[2];
                if (++rq1[i] == g.out[1]) {
                    rq1[i] = 0;
                    if (++rq0[i] == g.out[0]) {
                        rq0[i] = 0;
                        ++rn[i];
                    }
                }
            }
        }
    }
};

template <typename T, typename CFG>
static __global__ void __launch_bounds__(CFG::NT)
    conv_bwd_filter_tc(const __grid_constant__ tc_geom_t g, const T *__restrict__ x,
                       const T *__restrict__ dy, float *__restrict__ part, int64_t split_len,
                       unsigned *ctr, int splits, T *__restrict__ dw, double alpha, double beta)
{
    __shared__ __align__(128) T as[TC_STAGES * CFG::TM * TC_BK(T)];
    __shared__ __align__(128) T bs[TC_STAGES * CFG::TN * TC_BK(T)];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int warp_m = warp % CFG::WGM, warp_n = warp / CFG::WGM;
    const int k0 = blockIdx.y * CFG::TM;                  /* output channels */
    const int64_t j0 = (int64_t)blockIdx.x * CFG::TN;     /* (f, c) columns */
    const int64_t mbeg = (int64_t)blockIdx.z * split_len; /* this split's reduction range */
    const int64_t mend = mbeg + split_len < g.m ? mbeg + split_len : g.m;
    tc_bwd_filter_loader<T, CFG> ld(g, x, dy, mbeg, mend, k0, j0, tid);
    float acc[CFG::MI][4][4];
    tc_mainloop<T, 1, 1, CFG>(ld, (int)((mend - mbeg + TC_BK(T) - 1) / TC_BK(T)), as, bs, acc, warp_m,
                              warp_n, lane);

    float *out = part + (int64_t)blockIdx.z * g.k * g.kred;
#pragma unroll
    for (int mi = 0; mi < CFG::MI; mi++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int k = k0 + warp_m * 16 * CFG::MI + mi * 16 + (lane >> 2) + 8 * half;
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
    if (ctr == nullptr)
        return; /* conv_bwd_filter_tc_reduce runs next */
    /* one launch (splitk.cuh): the tile's last block sums its splits in order and blends */
    if (!fd_splitk_last_block(ctr + blockIdx.y * gridDim.x + blockIdx.x, splits, tid))
        return;
    const int k1 = k0 + CFG::TM < g.k ? k0 + CFG::TM : g.k;
    const int64_t j1 = j0 + CFG::TN < g.kred ? j0 + CFG::TN : g.kred;
    fd_splitk_sum_tile<4>(part, splits, (int64_t)g.k * g.kred, g.kred, k0, k1, j0, j1, tid,
                       CFG::NT, [&](int k, int64_t j, const float *vs) {
                           T *p = dw + k * g.wk + j;
#pragma unroll
                           for (int e = 0; e < 4; e++) {
                               double o = alpha * (double)vs[e];
                               if (beta != 0.0)
                                   o += beta * (double)tc_ld(p + e);
                               p[e] = tc_from_double_(p + e, o);
                           }
                       });
}

/* dw[k, j] = alpha * (sum of the splits, in split order) + beta * dw[k, j]. */
template <typename T>
static __global__ void conv_bwd_filter_tc_reduce(const __grid_constant__ tc_geom_t g,
                                                 const float *__restrict__ part, int splits,
                                                 T *__restrict__ dw, double alpha, double beta)
{
    const int64_t total = (int64_t)g.k * g.kred;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int z = 0; z < splits; z++)
            sum += part[(int64_t)z * total + e];
        const int64_t k = e / g.kred, j = e % g.kred;
        T *p = dw + k * g.wk + j;
        double v = alpha * (double)sum;
        if (beta != 0.0)
            v += beta * (double)tc_ld(p);
        *p = tc_from_double_(p, v);
    }
}
