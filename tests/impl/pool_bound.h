/* SPDX-License-Identifier: MIT */
/*
 * pool_bound.h - the f32 accumulation bound of the cpu pooling row's float window sums
 * (docs/testing.md, the cpu pooling row), shared by test_cpu_pool_fast.c and
 * test_cpu_memops2.c. Include after memops_case.h (cases, failures, h_ref, same_bits).
 *   |cpu - ref| <= 2 (K + 2) 2^-24 (|alpha| A + |beta y_old|) + 2^-24 |ref| + 2^-140,
 * A = the ref's result on |x| (forward) or |dy| (backward) with alpha 1, beta 0 (the sum of
 * the magnitudes of the element's terms); a non-finite ref must be matched exactly (NaN by any
 * NaN); the cpu runs with one and two threads must give the same bits.
 */
#ifndef FD_TESTS_IMPL_POOL_BOUND_H_
#define FD_TESTS_IMPL_POOL_BOUND_H_

static double box_worst; /* largest |cpu - ref| / tolerance seen under the bound */

/* Check of the three runs of o (FLOAT: ref, cpu one thread, cpu two threads) against the bound
 * above, given mag (A per element) and k; frees o. */
static void box_check(outbuf_t *o, const float *mag, int k, double alpha, double beta,
                      const char *what)
{
    cases++;
    const size_t n = o->bytes / sizeof(float);
    const float *ref = o->out[0], *init = o->init;
    int bad = !same_bits(CUDNN_DATA_FLOAT, o->out[1], o->out[2], o->bytes);
    if (bad)
        fprintf(stderr, "FAIL %s: 1 and 2 threads differ\n", what);
    for (size_t i = 0; i < n && !bad; i++) {
        const float got = ((const float *)o->out[1])[i], want = ref[i];
        if (memcmp(&got, &want, sizeof got) == 0 || (isnan(got) && isnan(want)))
            continue;
        const double old = beta != 0.0 ? fabs(beta * (double)init[i]) : 0.0;
        const double tol = 2.0 * (k + 2) * 0x1p-24 * (fabs(alpha) * (double)mag[i] + old) +
                           0x1p-24 * fabs((double)want) + 0x1p-140;
        const double err = fabs((double)got - (double)want);
        if (isfinite(want) && err / tol > box_worst)
            box_worst = err / tol;
        if (!isfinite(want) || !(err <= tol)) {
            bad = 1;
            fprintf(stderr, "FAIL %s: element %zu cpu %.9g ref %.9g (tolerance %.3g)\n", what, i,
                    (double)got, (double)want, tol);
        }
    }
    failures += bad;
    free(o->init);
    for (int r = 0; r < 3; r++)
        free(o->out[r]);
}

/* The ref's result on |v| (alpha 1, beta 0): forward on |x| (bwd 0) or backward on |dy|. */
static float *magnitudes(cudnnPoolingDescriptor_t pd, cudnnTensorDescriptor_t xd,
                         cudnnTensorDescriptor_t yd, const float *x, const float *y,
                         const float *dy, size_t nx, size_t ny, int bwd)
{
    const size_t nin = bwd ? ny : nx, nout = bwd ? nx : ny;
    float *in = malloc(nin * sizeof(float)), *out = calloc(nout, sizeof(float));
    for (size_t i = 0; i < nin; i++)
        in[i] = fabsf(bwd ? dy[i] : x[i]);
    const float one = 1.0f, zero = 0.0f;
    if (bwd)
        CHECK(cudnnPoolingBackward(h_ref, pd, &one, yd, y, yd, in, xd, x, &zero, xd, out));
    else
        CHECK(cudnnPoolingForward(h_ref, pd, &one, xd, in, &zero, yd, out));
    free(in);
    return out;
}

/* K of the bound: the window's taps (the terms of a forward output; a backward element's
 * windows are at most as many), plus one for the division's rounding. */
static int pool_bound_k(int nsp, const int *win)
{
    int k = 1;
    for (int d = 0; d < nsp; d++)
        k *= win[d];
    return k + 1;
}

#endif
