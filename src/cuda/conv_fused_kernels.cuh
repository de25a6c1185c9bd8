/* SPDX-License-Identifier: MIT */
/*
 * conv_fused_kernels.cuh - the fused convolution-bias-activation kernel of conv_fused.cu for one
 * storage type. conv_fused.cu includes this once per type with FD_T (storage of x, w, z, y),
 * FD_ACC (the convolution's accumulator: float, double for DOUBLE) and FD_SFX (f32, f64, f16,
 * bf16) defined, and its cf_ld / cf_st overloads in scope. Nothing else includes it.
 */

#define FD_CAT2(a, b) a##_##b
#define FD_CAT(a, b) FD_CAT2(a, b)
#define FD_K(name) FD_CAT(name, FD_SFX)

/* One thread per y element: the convolution sum (gathered as fd_conv_fwd_direct does), then
 * alpha1 * sum + alpha2 * z + bias and the activation in double, rounded once to y's type. The
 * thread reads its z element before it writes its y element, and when z is y the row has checked
 * that both are addressed alike, so every element is read and written by one thread only: z == y
 * is safe without scratch. z and y carry no __restrict__ for that reason. */
static __global__ void FD_K(conv_bias_act_fwd)(const fd_conv_bias_act_problem_t fp, const void *xv,
                                               const void *wv, const void *zv, const void *biasv,
                                               void *yv, double alpha1, double alpha2)
{
    const fd_conv_problem_t &p = fp.conv;
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ w = (const FD_T *)wv;
    const FD_T *z = (const FD_T *)zv;
    FD_T *y = (FD_T *)yv;
    const int64_t cgn = p.c / p.groups, kgn = p.k / p.groups;
    const int64_t total = p.n * p.k * p.out[0] * p.out[1] * p.out[2];
    FDM_FOR(e, total)
    {
        int64_t r = e;
        const int64_t o2 = r % p.out[2];
        r /= p.out[2];
        const int64_t o1 = r % p.out[1];
        r /= p.out[1];
        const int64_t o0 = r % p.out[0];
        r /= p.out[0];
        const int64_t k = r % p.k, n = r / p.k, g = k / kgn;
        FD_ACC acc = 0;
        for (int64_t cg = 0; cg < cgn; cg++) {
            const FD_T *xc = x + n * p.xs[0] + (g * cgn + cg) * p.xs[1];
            const FD_T *wc = w + k * p.ws[0] + cg * p.ws[1];
            for (int64_t t0 = 0; t0 < p.flt[0]; t0++) {
                const int64_t i0 = o0 * p.stride[0] - p.pad[0] + t0 * p.dil[0];
                if (i0 < 0 || i0 >= p.in[0])
                    continue;
                const int64_t w0 = (p.cross_correlation ? t0 : p.flt[0] - 1 - t0) * p.ws[2];
                for (int64_t t1 = 0; t1 < p.flt[1]; t1++) {
                    const int64_t i1 = o1 * p.stride[1] - p.pad[1] + t1 * p.dil[1];
                    if (i1 < 0 || i1 >= p.in[1])
                        continue;
                    const int64_t w1 = (p.cross_correlation ? t1 : p.flt[1] - 1 - t1) * p.ws[3];
                    for (int64_t t2 = 0; t2 < p.flt[2]; t2++) {
                        const int64_t i2 = o2 * p.stride[2] - p.pad[2] + t2 * p.dil[2];
                        if (i2 < 0 || i2 >= p.in[2])
                            continue;
                        const int64_t w2 = (p.cross_correlation ? t2 : p.flt[2] - 1 - t2) * p.ws[4];
                        acc += (FD_ACC)cf_ld(xc, i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4]) *
                               (FD_ACC)cf_ld(wc, w0 + w1 + w2);
                    }
                }
            }
        }
        const int64_t yo = n * p.ys[0] + k * p.ys[1] + o0 * p.ys[2] + o1 * p.ys[3] + o2 * p.ys[4];
        double v = __dmul_rn(alpha1, (double)acc);
        if (alpha2 != 0.0) {
            const int64_t zo =
                n * fp.zs[0] + k * fp.zs[1] + o0 * fp.zs[2] + o1 * fp.zs[3] + o2 * fp.zs[4];
            v = __dadd_rn(v, __dmul_rn(alpha2, (double)cf_ld(z, zo)));
        }
        v = __dadd_rn(v, fdm_ld(fp.bias_dt, biasv, k * fp.bias_stride));
        cf_st(y, yo, fdm_act_fwd(fp.act, v));
    }
}

#undef FD_K
#undef FD_CAT
#undef FD_CAT2
