/* SPDX-License-Identifier: MIT */
/*
 * test_conv_oracle.c - tests of the test machinery itself, so that a passing convolution test
 * means something: the harness's conversions (bit patterns, ties to even, subnormals,
 * overflow, all 65536 half and bfloat16 encodings, nearest-neighbour brute force on random
 * doubles, the compiler's _Float16 where it has one), the generator, FNV-1a test vectors,
 * guard detection, fills, the tolerance formula, and the oracle's three directions against
 * each other (with integer data the adjoint identity holds exactly).
 */
#include <float.h>

#include "conv_case.h"

static void check_bits(const char *what, unsigned got, unsigned want)
{
    FD_EXPECT(got == want, "%s: got 0x%04x, want 0x%04x", what, got, want);
}

static void known_values(void)
{
    check_bits("f16(1)", fd_test_f16_from_double(1.0), 0x3C00);
    check_bits("f16(-2)", fd_test_f16_from_double(-2.0), 0xC000);
    check_bits("f16(-0)", fd_test_f16_from_double(-0.0), 0x8000);
    check_bits("f16(0.1)", fd_test_f16_from_double(0.1), 0x2E66);
    check_bits("f16(65504)", fd_test_f16_from_double(65504.0), 0x7BFF);
    check_bits("f16(65519.99)", fd_test_f16_from_double(65519.99), 0x7BFF);
    check_bits("f16(65520) ties to inf", fd_test_f16_from_double(65520.0), 0x7C00);
    check_bits("f16(1e10)", fd_test_f16_from_double(1e10), 0x7C00);
    check_bits("f16(-inf)", fd_test_f16_from_double(-INFINITY), 0xFC00);
    FD_EXPECT((fd_test_f16_from_double(NAN) & 0x7C00) == 0x7C00 &&
                  (fd_test_f16_from_double(NAN) & 0x3FF),
              "f16(NaN) is not a NaN");
    check_bits("f16(1 + 2^-11) ties to even", fd_test_f16_from_double(1.0 + 0x1p-11), 0x3C00);
    check_bits("f16(1 + 3*2^-11) ties to even", fd_test_f16_from_double(1.0 + 3 * 0x1p-11), 0x3C02);
    check_bits("f16(1 + 2^-11 + 2^-30) rounds up", fd_test_f16_from_double(1.0 + 0x1p-11 + 0x1p-30),
               0x3C01);
    check_bits("f16(2^-24) smallest subnormal", fd_test_f16_from_double(0x1p-24), 0x0001);
    check_bits("f16(2^-25) ties to 0", fd_test_f16_from_double(0x1p-25), 0x0000);
    check_bits("f16(2^-25 + 2^-40)", fd_test_f16_from_double(0x1p-25 + 0x1p-40), 0x0001);
    check_bits("f16(3 * 2^-25) ties to even 2", fd_test_f16_from_double(3 * 0x1p-25), 0x0002);
    check_bits("f16(2^-14 - 2^-25) rounds to the smallest normal",
               fd_test_f16_from_double(0x1p-14 - 0x1p-25), 0x0400);
    check_bits("f16(1e-300)", fd_test_f16_from_double(1e-300), 0x0000);
    FD_EXPECT(
        fd_test_f16_to_double(0x0001) == 0x1p-24 && fd_test_f16_to_double(0x7BFF) == 65504.0 &&
            fd_test_f16_to_double(0x3555) == 0x1.554p-2 && isinf(fd_test_f16_to_double(0x7C00)) &&
            isnan(fd_test_f16_to_double(0x7E00)) && fd_test_f16_to_double(0x8400) == -0x1p-14,
        "f16 decoding of known patterns");

    check_bits("bf16(1)", fd_test_bf16_from_double(1.0), 0x3F80);
    check_bits("bf16(-3)", fd_test_bf16_from_double(-3.0), 0xC040);
    check_bits("bf16(0.1)", fd_test_bf16_from_double(0.1), 0x3DCD);
    check_bits("bf16(1 + 2^-8) ties to even", fd_test_bf16_from_double(1.0 + 0x1p-8), 0x3F80);
    check_bits("bf16(1 + 3*2^-8) ties to even", fd_test_bf16_from_double(1.0 + 3 * 0x1p-8), 0x3F82);
    check_bits("bf16(max)", fd_test_bf16_from_double(0x1.FEp127), 0x7F7F);
    check_bits("bf16(max + half ulp) ties to inf", fd_test_bf16_from_double(0x1.FFp127), 0x7F80);
    check_bits("bf16(2^-133) smallest subnormal", fd_test_bf16_from_double(0x1p-133), 0x0001);
    check_bits("bf16(2^-134) ties to 0", fd_test_bf16_from_double(0x1p-134), 0x0000);
    check_bits("bf16(257) ties to even 256", fd_test_bf16_from_double(257.0), 0x4380);
    check_bits("bf16(259) ties to even 260", fd_test_bf16_from_double(259.0), 0x4382);
    FD_EXPECT(fd_test_bf16_to_double(0x0001) == 0x1p-133 &&
                  fd_test_bf16_to_double(0x7F7F) == 0x1.FEp127 &&
                  isnan(fd_test_bf16_to_double(0x7FC0)),
              "bf16 decoding of known patterns");

    /* float goes through the C conversion: ties to even at 2^24 + 1 */
    float f[1];
    fd_test_store(CUDNN_DATA_FLOAT, f, 0, 16777217.0);
    FD_EXPECT(f[0] == 16777216.0f, "f32(2^24 + 1) = %.1f, want 16777216", (double)f[0]);
    FD_EXPECT(fd_test_representable(CUDNN_DATA_HALF, 2048) &&
                  !fd_test_representable(CUDNN_DATA_HALF, 2049) &&
                  fd_test_representable(CUDNN_DATA_BFLOAT16, 256) &&
                  !fd_test_representable(CUDNN_DATA_BFLOAT16, 257) &&
                  fd_test_representable(CUDNN_DATA_FLOAT, 16777216) &&
                  !fd_test_representable(CUDNN_DATA_FLOAT, 16777217),
              "representability limits of the exact mode");
}

/* Every encoding decodes and re-encodes to itself (NaNs stay NaN). */
static void all_encodings(void)
{
    int bad16 = 0, badbf = 0;
    for (unsigned b = 0; b < 65536; b++) {
        double v = fd_test_f16_to_double((uint16_t)b);
        unsigned back = fd_test_f16_from_double(v);
        bad16 += isnan(v) ? !isnan(fd_test_f16_to_double((uint16_t)back)) : back != b;
        v = fd_test_bf16_to_double((uint16_t)b);
        back = fd_test_bf16_from_double(v);
        badbf += isnan(v) ? !isnan(fd_test_bf16_to_double((uint16_t)back)) : back != b;
    }
    FD_EXPECT(bad16 == 0, "%d half encodings do not round-trip", bad16);
    FD_EXPECT(badbf == 0, "%d bfloat16 encodings do not round-trip", badbf);
}

/* Brute force: the encoding chosen for v is the nearest of its neighbours, ties to even. */
static int nearest_ok(double v, unsigned b, double (*dec)(uint16_t))
{
    double got = dec((uint16_t)b);
    if (isinf(got))
        return 1; /* overflow thresholds are checked by known_values */
    double err = fabs(got - v);
    for (int dlt = -1; dlt <= 1; dlt += 2) {
        unsigned nb = (b & 0x8000) | (uint16_t)((b & 0x7FFF) + dlt);
        if ((b & 0x7FFF) == 0 && dlt < 0)
            nb = (b ^ 0x8000) | 1; /* the neighbour of 0 on the other side */
        double other = dec((uint16_t)nb);
        if (isnan(other) || isinf(other))
            continue;
        double oerr = fabs(other - v);
        if (oerr < err || (oerr == err && (b & 1) && !(nb & 1) && other != got))
            return 0;
    }
    return 1;
}

static void random_rounding(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, 12345);
    int bad16 = 0, badbf = 0, badh = 0;
    for (int i = 0; i < 200000; i++) {
        double m = fd_rng_uniform(&r) * 2 - 1;
        int e16 = fd_rng_int(&r, -30, 17), ebf = fd_rng_int(&r, -140, 128);
        double v16 = ldexp(m, e16), vbf = ldexp(m, ebf);
        if (i % 4 == 0) /* exact ties and near-ties */
            v16 = ldexp((double)fd_rng_int(&r, 1, 4095) + 0.5, fd_rng_int(&r, -30, 4)),
            vbf = ldexp((double)fd_rng_int(&r, 1, 511) + 0.5, fd_rng_int(&r, -140, 100));
        bad16 += !nearest_ok(v16, fd_test_f16_from_double(v16), fd_test_f16_to_double);
        badbf += !nearest_ok(vbf, fd_test_bf16_from_double(vbf), fd_test_bf16_to_double);
#ifdef __FLT16_MAX__
        _Float16 hw = (_Float16)v16; /* the compiler's correctly rounded conversion */
        uint16_t hb;
        memcpy(&hb, &hw, 2);
        badh += hb != fd_test_f16_from_double(v16);
#endif
    }
    FD_EXPECT(bad16 == 0, "%d doubles not rounded to the nearest half (ties to even)", bad16);
    FD_EXPECT(badbf == 0, "%d doubles not rounded to the nearest bfloat16 (ties to even)", badbf);
    FD_EXPECT(badh == 0, "%d doubles rounded differently from the compiler's _Float16", badh);
}

static void generator_and_hash(void)
{
    fd_rng_t a, b;
    fd_rng_seed(&a, 42), fd_rng_seed(&b, 42);
    int same = 1, lo_seen = 0, hi_seen = 0, in_range = 1, unit = 1;
    for (int i = 0; i < 10000; i++)
        same &= fd_rng_next(&a) == fd_rng_next(&b);
    for (int i = 0; i < 10000; i++) {
        int v = fd_rng_int(&a, -3, 5);
        in_range &= v >= -3 && v <= 5;
        lo_seen |= v == -3, hi_seen |= v == 5;
        double u = fd_rng_uniform(&a);
        unit &= u >= 0.0 && u < 1.0;
    }
    FD_EXPECT(same, "two generators with one seed diverged");
    FD_EXPECT(in_range && lo_seen && hi_seen, "fd_rng_int(-3, 5) out of range or missing an end");
    FD_EXPECT(unit, "fd_rng_uniform outside [0, 1)");
    fd_rng_seed(&b, 43);
    FD_EXPECT(fd_rng_next(&a) != fd_rng_next(&b), "different seeds gave the same stream");
    FD_EXPECT(fd_test_mix(1, 2) != fd_test_mix(1, 3) && fd_test_mix(1, 2) != fd_test_mix(2, 2),
              "fd_test_mix collides");

    static const struct {
        const char *s;
        uint64_t h;
    } fnv[3] = {{"", 0xcbf29ce484222325ull},
                {"a", 0xaf63dc4c8601ec8cull},
                {"foobar", 0x85944171f73967e8ull}};
    for (int i = 0; i < 3; i++) {
        fd_buf_t bf = fd_buf_alloc(strlen(fnv[i].s));
        memcpy(bf.data, fnv[i].s, bf.size);
        FD_EXPECT(fd_buf_hash(&bf) == fnv[i].h, "FNV-1a(\"%s\") = %016llx", fnv[i].s,
                  (unsigned long long)fd_buf_hash(&bf));
        fd_buf_free(&bf);
    }
}

static void guards(void)
{
    static const size_t sizes[3] = {0, 1, 1000};
    for (int i = 0; i < 3; i++) {
        fd_buf_t b = fd_buf_alloc(sizes[i]);
        int zero = 1;
        for (size_t k = 0; k < b.size; k++)
            zero &= ((unsigned char *)b.data)[k] == 0;
        FD_EXPECT(zero && fd_buf_guards_ok(&b),
                  "fresh buffer of %zu bytes: zeroed payload and intact guards", sizes[i]);
        fd_buf_poison(&b);
        int ff = 1;
        for (size_t k = 0; k < b.size; k++)
            ff &= ((unsigned char *)b.data)[k] == 0xFF;
        FD_EXPECT(ff && fd_buf_guards_ok(&b), "poison fills the payload only");
        unsigned char *after = (unsigned char *)b.data + b.size,
                      *before = (unsigned char *)b.data - 1;
        *after ^= 1;
        FD_EXPECT(!fd_buf_guards_ok(&b), "a write one byte past the payload is caught");
        *after ^= 1;
        after[FD_GUARD_BYTES - 1] ^= 1;
        FD_EXPECT(!fd_buf_guards_ok(&b), "a write at the end of the trailing guard is caught");
        after[FD_GUARD_BYTES - 1] ^= 1;
        *before ^= 1;
        FD_EXPECT(!fd_buf_guards_ok(&b), "a write one byte before the payload is caught");
        *before ^= 1;
        FD_EXPECT(fd_buf_guards_ok(&b), "guards intact again after restoring");
        fd_buf_free(&b);
    }
}

static void fills_and_tolerance(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, 7);
    for (int t = 0; t < 4; t++) {
        cudnnDataType_t dt = cc_dtypes[t];
        unsigned char buf[8 * 1000];
        fd_fill_int(&r, dt, buf, 1000, -4, 4, 1.0);
        int nonzero = 1, range = 1;
        for (int i = 0; i < 1000; i++) {
            double v = fd_test_load(dt, buf, i);
            nonzero &= v != 0, range &= v >= -4 && v <= 4 && v == floor(v);
        }
        FD_EXPECT(nonzero && range, "%s: density 1 fills non-zero integers in [-4, 4]",
                  fd_test_dtype_short(dt));
        fd_fill_int(&r, dt, buf, 1000, -4, 4, 0.0);
        int zero = 1;
        for (int i = 0; i < 1000; i++)
            zero &= fd_test_load(dt, buf, i) == 0;
        FD_EXPECT(zero, "%s: density 0 fills zeros", fd_test_dtype_short(dt));
        fd_fill_int(&r, dt, buf, 1000, -4, 4, 0.25);
        int nz = 0;
        for (int i = 0; i < 1000; i++)
            nz += fd_test_load(dt, buf, i) != 0;
        FD_EXPECT(nz > 170 && nz < 330, "%s: density 0.25 gave %d non-zeros of 1000",
                  fd_test_dtype_short(dt), nz);
        fd_fill_real(&r, dt, buf, 1000, -1, 1);
        int in = 1;
        for (int i = 0; i < 1000; i++) {
            double v = fd_test_load(dt, buf, i);
            in &= v >= -1 && v <= 1;
        }
        FD_EXPECT(in, "%s: real fill within [-1, 1]", fd_test_dtype_short(dt));
    }
    FD_EXPECT(fd_unit_roundoff(CUDNN_DATA_FLOAT) == 0x1p-24 &&
                  fd_unit_roundoff(CUDNN_DATA_DOUBLE) == 0x1p-53 &&
                  fd_unit_roundoff(CUDNN_DATA_HALF) == 0x1p-11 &&
                  fd_unit_roundoff(CUDNN_DATA_BFLOAT16) == 0x1p-8 &&
                  fd_unit_roundoff(CUDNN_DATA_INT8) == 0,
              "unit round-offs");
    double t = fd_tolerance(CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 10, 3.0, -2.0);
    double expect = 2.0 * 10 * 0x1p-24 * 3.0 + 0x1p-24 * 2.0 + 0x1p-149 + 10 * 0x1p-149;
    FD_EXPECT(t == expect, "fd_tolerance(f32, f32, K 10, sum 3, want -2) = %.17g, want %.17g", t,
              expect);
    t = fd_tolerance(CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, 4, 1.0, 0.5);
    expect = 2.0 * 4 * 0x1p-24 + 0x1p-11 * 0.5 + 0x1p-24 + 4 * 0x1p-149;
    FD_EXPECT(t == expect, "fd_tolerance(f16, f32, K 4, sum 1, want 0.5) = %.17g, want %.17g", t,
              expect);
    t = fd_tolerance_ex(CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, FD_U_IN_TF32, 8, 1.0, 1.0);
    expect = 2.0 * (2 * 0x1p-11 + 8 * 0x1p-24) + 0x1p-24 + 0x1p-149 + 8 * 0x1p-149;
    FD_EXPECT(t == expect, "fd_tolerance_ex(tf32) = %.17g, want %.17g", t, expect);
    FD_EXPECT(fd_tolerance(CUDNN_DATA_INT32, CUDNN_DATA_INT32, 100, 1e6, 1e6) == 0.0,
              "integer tolerance is 0");
}

/* With integer data the three directions of the oracle satisfy the adjoint identity exactly. */
static void oracle_adjoint(void)
{
    int cases = 0;
    for (int i = 0; i < 200; i++) {
        cc_case_t c = cc_case_gen(CO_FWD, CUDNN_DATA_DOUBLE, fd_test_mix(0x0AC1E, (uint64_t)i), 0);
        const co_shape_t *s = &c.s;
        int64_t nx = co_x_count(s), nw = co_w_count(s), ny = co_y_count(s);
        double *x = malloc(sizeof(double) * (size_t)nx), *w = malloc(sizeof(double) * (size_t)nw);
        double *dy = malloc(sizeof(double) * (size_t)ny);
        fd_rng_t r;
        fd_rng_seed(&r, (uint64_t)i);
        cc_fill(&r, CUDNN_DATA_DOUBLE, x, nx, CC_EXACT, 9, 0.8, 1);
        cc_fill(&r, CUDNN_DATA_DOUBLE, w, nw, CC_EXACT, 9, 0.8, 1);
        cc_fill(&r, CUDNN_DATA_DOUBLE, dy, ny, CC_EXACT, 9, 0.8, 1);
        co_acc_t y = co_acc_new(ny), dx = co_acc_new(nx), dw = co_acc_new(nw),
                 db = co_acc_new(s->k);
        co_run(s, CO_FWD, x, w, &y);
        co_run(s, CO_BWD_DATA, dy, w, &dx);
        co_run(s, CO_BWD_FILTER, x, dy, &dw);
        co_run(s, CO_BWD_BIAS, dy, NULL, &db);
        double a = 0, b = 0, cw = 0, sum_dy = 0, sum_db = 0; /* integers well below 2^53: exact */
        for (int64_t e = 0; e < ny; e++)
            a += dy[e] * co_acc_value(&y, e), sum_dy += dy[e];
        for (int64_t e = 0; e < nx; e++)
            b += x[e] * co_acc_value(&dx, e);
        for (int64_t e = 0; e < nw; e++)
            cw += w[e] * co_acc_value(&dw, e);
        for (int k = 0; k < s->k; k++)
            sum_db += co_acc_value(&db, k);
        char rep[512];
        cc_repro(&c, rep, sizeof rep);
        FD_EXPECT(a == b && a == cw, "oracle adjoint: %.17g %.17g %.17g; %s", a, b, cw, rep);
        FD_EXPECT(sum_dy == sum_db, "oracle bias: sum dy %.17g, sum db %.17g; %s", sum_dy, sum_db,
                  rep);
        /* a term count check: forward terms of all outputs = connections = backward terms */
        int64_t ty = 0, tx = 0, tw = 0;
        for (int64_t e = 0; e < ny; e++)
            ty += y.terms[e];
        for (int64_t e = 0; e < nx; e++)
            tx += dx.terms[e];
        for (int64_t e = 0; e < nw; e++)
            tw += dw.terms[e];
        FD_EXPECT(ty == tx && ty == tw, "oracle connection counts differ: %lld %lld %lld; %s",
                  (long long)ty, (long long)tx, (long long)tw, rep);
        co_acc_free(&y), co_acc_free(&dx), co_acc_free(&dw), co_acc_free(&db);
        free(x), free(w), free(dy);
        cases++;
    }
    printf("oracle adjoint: %d shapes\n", cases);
}

int main(void)
{
    known_values();
    all_encodings();
    random_rounding();
    generator_and_hash();
    guards();
    fills_and_tolerance();
    oracle_adjoint();
    return fd_test_finish();
}
