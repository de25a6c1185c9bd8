/* SPDX-License-Identifier: MIT */
/*
 * test_dnb_util.c - tools/dnnbench/util.c's own conversions and hashes, which the driver's checks
 * stand on: the 16-bit encodings (HALF, BFLOAT16) against their definition (every encoding
 * decodes to its value and encodes back; a double encodes to the nearer of its two neighbours,
 * ties to the even one; overflow, subnormals, signed zeros, NaN), dnb_hash_bulk (every
 * single-bit change of a buffer changes it, tails and lanes included), and dnb_compare's
 * chunked (OpenMP) pass against an element-by-element count: failures, the first of them,
 * the worst ratio, the zero fraction, exactness.
 */
#include "../../tools/dnnbench/util.c" /* first: it sets _POSIX_C_SOURCE for its headers */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fd_test.h"

static dnb_rng_t rng = {0x243f6a8885a308d3ull}; /* util.c's own generator (included above) */

static uint64_t next(void)
{
    return rng_next(&rng);
}

static uint16_t enc(cudnnDataType_t dt, double v)
{
    uint16_t b;
    dnb_store(dt, &b, 0, v);
    return b;
}

static double dec(cudnnDataType_t dt, uint16_t b)
{
    return dnb_load(dt, &b, 0);
}

/* The value of a finite encoding, from the format's definition. */
static double value_of(uint16_t b, int ebits, int mbits)
{
    const int bias = (1 << (ebits - 1)) - 1;
    const int e = (b >> mbits) & ((1 << ebits) - 1), m = b & ((1 << mbits) - 1);
    const double s = (b >> (ebits + mbits)) ? -1.0 : 1.0;
    return e == 0 ? s * m * pow(2.0, 1 - bias - mbits)
                  : s * (1.0 + m * pow(2.0, -mbits)) * pow(2.0, e - bias);
}

static void formats(void)
{
    static const struct {
        cudnnDataType_t dt;
        int ebits, mbits;
        const char *name;
    } f[2] = {{CUDNN_DATA_HALF, 5, 10, "half"}, {CUDNN_DATA_BFLOAT16, 8, 7, "bfloat16"}};
    for (int k = 0; k < 2; k++) {
        const cudnnDataType_t dt = f[k].dt;
        const int eb = f[k].ebits, mb = f[k].mbits;
        const uint16_t inf = (uint16_t)(((1u << eb) - 1u) << mb);
        int bad = 0;
        for (uint32_t b = 0; b < 1u << (1 + eb + mb); b++) {
            const double v = dec(dt, (uint16_t)b);
            if (((b & inf) == inf) && (b & ((1u << mb) - 1u))) { /* NaN */
                bad += !isnan(v) || !isnan(dec(dt, enc(dt, v)));
                continue;
            }
            const double want = (b & inf) == inf ? ((b >> (eb + mb)) ? -INFINITY : INFINITY)
                                                 : value_of((uint16_t)b, eb, mb);
            bad += !(v == want && signbit(v) == signbit(want)) || enc(dt, v) != b;
        }
        FD_EXPECT(bad == 0, "%s: %d encodings do not decode to their value and back", f[k].name,
                  bad);
        /* random doubles over the format's range and beyond, and exact midpoints */
        bad = 0;
        const double max = value_of((uint16_t)(inf - 1u), eb, mb);
        for (int i = 0; i < 2000000; i++) {
            const uint64_t r = next();
            double v;
            if (i % 2 == 0) {
                v = ldexp((double)(r >> 11) * 0x1p-53, (int)(next() % 320) - 160);
            } else { /* the midpoint of two neighbours, or one double beside it */
                const uint16_t b = (uint16_t)(r % (inf - 1u));
                v = (dec(dt, b) + dec(dt, (uint16_t)(b + 1))) / 2;
                if (r >> 62)
                    v = nextafter(v, (r >> 63) ? INFINITY : 0.0);
            }
            if (r & 1)
                v = -v;
            const uint16_t got = enc(dt, v);
            const double a = fabs(v), g = fabs(dec(dt, got));
            if (a >= max + (max - value_of((uint16_t)(inf - 2u), eb, mb)) / 2) {
                bad += !isinf(g); /* from half an ulp above the largest value (a tie: to even) */
                continue;
            }
            /* the neighbours of a: lo <= a <= hi, consecutive encodings */
            uint16_t lo = (uint16_t)(got & ~(1u << (eb + mb)));
            if (g > a && lo > 0)
                lo--;
            const double vlo = dec(dt, lo), vhi = dec(dt, (uint16_t)(lo + 1));
            const double want = a - vlo < vhi - a   ? vlo
                                : a - vlo > vhi - a ? vhi
                                : (lo & 1)          ? vhi
                                                    : vlo;
            bad += g != want || (v != 0 && signbit(dec(dt, got)) != signbit(v));
        }
        FD_EXPECT(bad == 0, "%s: %d doubles not rounded to the nearest, ties to even", f[k].name,
                  bad);
        FD_EXPECT(signbit(dec(dt, enc(dt, -0.0))) && dec(dt, enc(dt, -0.0)) == 0,
                  "%s: -0 keeps its sign", f[k].name);
        FD_EXPECT(enc(dt, 1e-300) == 0 && enc(dt, 5e-324) == 0, "%s: tiny doubles give +0",
                  f[k].name);
        FD_EXPECT(isnan(dec(dt, enc(dt, NAN))), "%s: NaN stays NaN", f[k].name);
    }
    FD_EXPECT(enc(CUDNN_DATA_HALF, 65504.0) == 0x7bff && enc(CUDNN_DATA_HALF, 65520.0) == 0x7c00 &&
                  enc(CUDNN_DATA_HALF, 65519.99) == 0x7bff,
              "half: the largest finite value and the overflow threshold");
    FD_EXPECT(enc(CUDNN_DATA_HALF, 0x1p-25) == 0 &&
                  enc(CUDNN_DATA_HALF, 0x1.0000000000001p-25) == 1 &&
                  enc(CUDNN_DATA_HALF, 0x1p-24) == 1 && enc(CUDNN_DATA_HALF, 0x1.8p-24) == 2,
              "half: the subnormal ties (2^-25 to even 0, 1.5 x 2^-24 to even 2)");
    FD_EXPECT(enc(CUDNN_DATA_BFLOAT16, 1.0 + 0x1p-8) == 0x3f80 &&
                  enc(CUDNN_DATA_BFLOAT16, 1.0 + 3 * 0x1p-8) == 0x3f82,
              "bfloat16: ties to even");
}

static void hashes(void)
{
    unsigned char buf[203];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(next() >> 56);
    int same = 0;
    for (size_t n = 0; n <= sizeof buf; n += 29) {
        const uint64_t h = dnb_hash_bulk(buf, n, 1);
        for (size_t i = 0; i < n; i++)
            for (int bit = 0; bit < 8; bit++) {
                buf[i] ^= (unsigned char)(1u << bit);
                same += dnb_hash_bulk(buf, n, 1) == h;
                buf[i] ^= (unsigned char)(1u << bit);
            }
        same += n > 0 && dnb_hash_bulk(buf, n, 2) == h; /* the seed enters */
    }
    FD_EXPECT(same == 0, "dnb_hash_bulk: %d single-bit changes (or seeds) leave it unchanged",
              same);
}

/* got = want (FLOAT) but for planted misses; the expected verdict by a plain serial walk. */
static void compares(void)
{
    const int64_t n = DNB_PAR_MIN * 3 + 77; /* past the parallel threshold, chunks cut short */
    float *got = malloc(sizeof(float) * (size_t)n);
    double *want = malloc(sizeof(double) * (size_t)n), *S = malloc(sizeof(double) * (size_t)n);
    FD_EXPECT(got && want && S, "compares: allocation");
    if (!got || !want || !S)
        goto out;
    for (int64_t i = 0; i < n; i++) {
        want[i] = i % 5 == 0 ? 0.0 : (double)(float)((double)(next() >> 11) * 0x1p-53 - 0.5);
        got[i] = (float)want[i];
        S[i] = fabs(want[i]) + 1.0;
    }
    const int64_t planted[4] = {n - 1, 5 * DNB_PAR_MIN / 2, DNB_PAR_MIN + 3, 1001};
    for (int k = 0; k < 4; k++)
        got[planted[k]] += 0.25f * (float)(k + 1);
    got[7] = NAN; /* a NaN fails, and its error is infinite */
    const dnb_tol_t tol = {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 0.0, 4, 1.0, 0};
    dnb_cmp_t r;
    dnb_compare(&tol, got, want, S, n, &r);
    int64_t zeros = 0;
    for (int64_t i = 0; i < n; i++)
        zeros += want[i] == 0.0;
    FD_EXPECT(r.bad == 5 && r.first_bad == 7 && isnan(r.first_got) && r.first_want == want[7],
              "dnb_compare: %lld failures, the first at %lld (want 5, at 7)", (long long)r.bad,
              (long long)r.first_bad);
    FD_EXPECT(isinf(r.max_err) && r.worst_ratio > 1 && isfinite(r.worst_ratio) && !r.all_exact,
              "dnb_compare: max error %g (a NaN: infinite), worst ratio %g (of the finite misses)",
              r.max_err, r.worst_ratio);
    FD_EXPECT(r.zero_frac == (double)zeros / (double)n, "dnb_compare: zero fraction %g, want %g",
              r.zero_frac, (double)zeros / (double)n);
    got[7] = (float)want[7];
    dnb_compare(&tol, got, want, S, n, &r);
    FD_EXPECT(r.bad == 4 && r.first_bad == 1001 && fabs(r.max_err - 1.0) < 1e-6 &&
                  r.worst_ratio > 1,
              "dnb_compare: %lld failures from %lld, max error %g (want 4 from 1001, 1.0)",
              (long long)r.bad, (long long)r.first_bad, r.max_err);
out:
    free(got), free(want), free(S);
}

int main(void)
{
    formats();
    hashes();
    compares();
    return fd_test_finish();
}
