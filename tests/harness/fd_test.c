/* SPDX-License-Identifier: MIT */
/*
 * fd_test.c - the test harness (fd_test.h; DESIGN D9, contract §4.2, docs/testing.md).
 *
 * Deliberately shares no code with the library: the 16-bit float conversions here are written
 * from the IEEE-754 bit encodings with integer rounding (the library uses frexp/nearbyint), so
 * a rounding bug on either side shows up as a disagreement. Floats use the C conversion
 * (IEEE round to nearest even in hardware); doubles are stored as they are.
 */
#include "fd_test.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int fd_test_passed, fd_test_failed;

#define FD_TEST_MAX_PRINT 200
static int printed;

int fd_test_should_print(void)
{
    static int verbose = -1;
    if (verbose < 0) {
        const char *v = getenv("FD_TEST_VERBOSE");
        verbose = v != NULL && v[0] != '\0' && v[0] != '0';
    }
    if (verbose || printed < FD_TEST_MAX_PRINT) {
        printed++;
        return 1;
    }
    if (printed == FD_TEST_MAX_PRINT) {
        printed++;
        printf("(further failure messages suppressed; FD_TEST_VERBOSE=1 prints them all)\n");
    }
    return 0;
}

void fd_expect_at(int ok, const char *file, int line, const char *fmt, ...)
{
    if (ok) {
        fd_test_passed++;
        return;
    }
    fd_test_failed++;
    if (!fd_test_should_print())
        return;
    printf("FAIL %s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

void fd_expect_status_at(cudnnStatus_t got, cudnnStatus_t want, const char *expr, const char *file,
                         int line)
{
    if (got == want) {
        fd_test_passed++;
        return;
    }
    char last[512];
    cudnnGetLastErrorString(last, sizeof last);
    fd_expect_at(0, file, line, "%s returned %s (%d), expected %s (%d); last error: %s", expr,
                 cudnnGetErrorString(got), (int)got, cudnnGetErrorString(want), (int)want, last);
}

int fd_test_finish(void)
{
    printf("%d passed, %d failed\n", fd_test_passed, fd_test_failed);
    fflush(stdout);
    return fd_test_failed != 0;
}

/* ---- guarded buffers ---- */

fd_buf_t fd_buf_alloc(size_t size)
{
    fd_buf_t b = {NULL, NULL, size};
    b.base = malloc(2 * (size_t)FD_GUARD_BYTES + size);
    if (b.base == NULL) {
        fprintf(stderr, "fd_buf_alloc: out of memory for %zu bytes\n", size);
        abort();
    }
    memset(b.base, FD_GUARD_BYTE, FD_GUARD_BYTES);
    memset(b.base + FD_GUARD_BYTES + size, FD_GUARD_BYTE, FD_GUARD_BYTES);
    b.data = b.base + FD_GUARD_BYTES;
    memset(b.data, 0, size);
    return b;
}

void fd_buf_free(fd_buf_t *b)
{
    free(b->base);
    b->base = NULL;
    b->data = NULL;
    b->size = 0;
}

void fd_conv_descs_create(fd_conv_descs_t *d)
{
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&d->x), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&d->y), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateFilterDescriptor(&d->w), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateConvolutionDescriptor(&d->cv), CUDNN_STATUS_SUCCESS);
}

void fd_conv_descs_destroy(fd_conv_descs_t *d)
{
    FD_EXPECT_STATUS(cudnnDestroyTensorDescriptor(d->x), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyTensorDescriptor(d->y), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyFilterDescriptor(d->w), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyConvolutionDescriptor(d->cv), CUDNN_STATUS_SUCCESS);
}

void fd_buf_poison(fd_buf_t *b)
{
    memset(b->data, 0xFF, b->size);
}

int fd_buf_guards_ok(const fd_buf_t *b)
{
    const unsigned char *lo = b->base, *hi = b->base + FD_GUARD_BYTES + b->size;
    for (size_t i = 0; i < FD_GUARD_BYTES; i++)
        if (lo[i] != FD_GUARD_BYTE || hi[i] != FD_GUARD_BYTE)
            return 0;
    return 1;
}

uint64_t fd_buf_hash(const fd_buf_t *b)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, 64-bit */
    const unsigned char *p = b->data;
    for (size_t i = 0; i < b->size; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- seeds and the generator (splitmix64) ---- */

void fd_rng_seed(fd_rng_t *r, uint64_t seed)
{
    r->s = seed;
}

uint64_t fd_rng_next(fd_rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int fd_rng_int(fd_rng_t *r, int lo, int hi)
{
    if (hi <= lo)
        return lo;
    uint64_t range = (uint64_t)((int64_t)hi - lo) + 1;
    uint64_t limit = UINT64_MAX - UINT64_MAX % range; /* rejection keeps it unbiased */
    uint64_t v;
    do
        v = fd_rng_next(r);
    while (v >= limit);
    return (int)((int64_t)lo + (int64_t)(v % range));
}

double fd_rng_uniform(fd_rng_t *r)
{
    return (double)(fd_rng_next(r) >> 11) * 0x1p-53;
}

uint64_t fd_test_mix(uint64_t a, uint64_t b)
{
    fd_rng_t r = {a ^ (b * 0xd6e8feb86659fd93ull)};
    fd_rng_next(&r);
    return fd_rng_next(&r);
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (s == NULL || *s == '\0')
        return 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end != '\0') {
        fprintf(stderr, "fd_test: cannot parse '%s' as a seed; ignored\n", s);
        return 0;
    }
    *out = (uint64_t)v;
    return 1;
}

int fd_test_seed_forced(uint64_t *seed)
{
    return parse_u64(getenv("FD_TEST_SEED"), seed);
}

uint64_t fd_test_sweep_seed(uint64_t dflt)
{
    uint64_t s;
    return parse_u64(getenv("FD_TEST_SWEEP_SEED"), &s) ? s : dflt;
}

double fd_test_scale(void)
{
    const char *s = getenv("FD_TEST_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

/* ---- conversions ---- */

static uint64_t bits_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* Round a double to a binary float with `mbits` stored mantissa bits, exponent bias `bias`
 * and `ebits` exponent bits, and return its encoding. Pure integer arithmetic on the 53-bit
 * significand; ties go to the even significand; a carry out of the mantissa moves into the
 * exponent field, which also turns the largest finite value plus a rounding into infinity. */
static uint32_t encode_small(double v, int mbits, int ebits, int bias)
{
    const uint64_t u = bits_of(v);
    const uint32_t sign = (uint32_t)(u >> 63) << (mbits + ebits);
    const int dexp = (int)((u >> 52) & 0x7ff);
    const uint64_t dmant = u & ((1ull << 52) - 1);
    const uint32_t emask = (1u << ebits) - 1, inf = emask << mbits;
    if (dexp == 0x7ff) /* inf or NaN (quiet, payload dropped) */
        return sign | inf | (dmant ? 1u << (mbits - 1) : 0);
    if (dexp == 0) /* zero or double subnormal: far below any 16-bit subnormal */
        return sign;
    const int e = dexp - 1023; /* v = 1.f * 2^e */
    const int emin = 1 - bias, emax = (int)emask - 1 - bias;
    if (e > emax)
        return sign | inf;
    const uint64_t m = dmant | (1ull << 52); /* 53-bit significand */
    int shift = 52 - mbits;                  /* normal: keep mbits after the point */
    if (e < emin)
        shift += emin - e; /* subnormal: quantum stays 2^(emin - mbits) */
    if (shift > 60)
        return sign; /* below half the smallest subnormal */
    uint64_t q = m >> shift, rem = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    uint32_t enc;
    if (e < emin)
        enc = (uint32_t)q; /* q <= 2^mbits; == 2^mbits is the smallest normal */
    else
        enc = ((uint32_t)(e + bias - 1) << mbits) + (uint32_t)q; /* q includes the implicit 1 */
    if (enc > inf)
        enc = inf;
    return sign | enc;
}

static double decode_small(uint32_t b, int mbits, int ebits, int bias)
{
    const uint32_t emask = (1u << ebits) - 1;
    const int neg = (b >> (mbits + ebits)) & 1;
    const uint32_t ef = (b >> mbits) & emask, mf = b & ((1u << mbits) - 1);
    double v;
    if (ef == emask)
        v = mf ? NAN : INFINITY;
    else if (ef == 0)
        v = ldexp((double)mf, 1 - bias - mbits);
    else
        v = ldexp((double)(mf | (1u << mbits)), (int)ef - bias - mbits);
    return neg ? -v : v;
}

uint16_t fd_test_f16_from_double(double v)
{
    return (uint16_t)encode_small(v, 10, 5, 15);
}

double fd_test_f16_to_double(uint16_t h)
{
    return decode_small(h, 10, 5, 15);
}

uint16_t fd_test_bf16_from_double(double v)
{
    return (uint16_t)encode_small(v, 7, 8, 127);
}

double fd_test_bf16_to_double(uint16_t b)
{
    return decode_small(b, 7, 8, 127);
}

const char *fd_test_dtype_short(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        return "f32";
    case CUDNN_DATA_DOUBLE:
        return "f64";
    case CUDNN_DATA_HALF:
        return "f16";
    case CUDNN_DATA_BFLOAT16:
        return "bf16";
    case CUDNN_DATA_INT8:
        return "s8";
    case CUDNN_DATA_INT32:
        return "s32";
    case CUDNN_DATA_UINT8:
        return "u8";
    case CUDNN_DATA_INT64:
        return "s64";
    default:
        return "other";
    }
}

size_t fd_test_dtype_size(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_INT32:
        return 4;
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT64:
        return 8;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
        return 2;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
        return 1;
    default:
        return 0;
    }
}

/* Integer stores round to nearest (ties away) and saturate, as cuDNN's int8 outputs do. */
static int64_t to_int(double v, int64_t lo, int64_t hi)
{
    if (isnan(v))
        return 0;
    double r = round(v);
    return r < (double)lo ? lo : r > (double)hi ? hi : (int64_t)r;
}

void fd_test_store(cudnnDataType_t dt, void *base, int64_t i, double v)
{
    unsigned char *p = base;
    switch (dt) {
    case CUDNN_DATA_FLOAT: {
        float f = (float)v;
        memcpy(p + 4 * i, &f, 4);
        break;
    }
    case CUDNN_DATA_DOUBLE:
        memcpy(p + 8 * i, &v, 8);
        break;
    case CUDNN_DATA_HALF: {
        uint16_t h = fd_test_f16_from_double(v);
        memcpy(p + 2 * i, &h, 2);
        break;
    }
    case CUDNN_DATA_BFLOAT16: {
        uint16_t h = fd_test_bf16_from_double(v);
        memcpy(p + 2 * i, &h, 2);
        break;
    }
    case CUDNN_DATA_INT8: {
        int8_t s = (int8_t)to_int(v, INT8_MIN, INT8_MAX);
        memcpy(p + i, &s, 1);
        break;
    }
    case CUDNN_DATA_UINT8: {
        uint8_t s = (uint8_t)to_int(v, 0, UINT8_MAX);
        memcpy(p + i, &s, 1);
        break;
    }
    case CUDNN_DATA_INT32: {
        int32_t s = (int32_t)to_int(v, INT32_MIN, INT32_MAX);
        memcpy(p + 4 * i, &s, 4);
        break;
    }
    case CUDNN_DATA_INT64: {
        int64_t s = to_int(v, -0x7fffffffffffffffll, 0x7fffffffffffffffll);
        memcpy(p + 8 * i, &s, 8);
        break;
    }
    default:
        fprintf(stderr, "fd_test_store: data type %d is not supported by the harness\n", (int)dt);
        abort();
    }
}

double fd_test_load(cudnnDataType_t dt, const void *base, int64_t i)
{
    const unsigned char *p = base;
    switch (dt) {
    case CUDNN_DATA_FLOAT: {
        float f;
        memcpy(&f, p + 4 * i, 4);
        return f;
    }
    case CUDNN_DATA_DOUBLE: {
        double d;
        memcpy(&d, p + 8 * i, 8);
        return d;
    }
    case CUDNN_DATA_HALF: {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        return fd_test_f16_to_double(h);
    }
    case CUDNN_DATA_BFLOAT16: {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        return fd_test_bf16_to_double(h);
    }
    case CUDNN_DATA_INT8:
        return (double)(int8_t)p[i];
    case CUDNN_DATA_UINT8:
        return (double)p[i];
    case CUDNN_DATA_INT32: {
        int32_t s;
        memcpy(&s, p + 4 * i, 4);
        return s;
    }
    case CUDNN_DATA_INT64: {
        int64_t s;
        memcpy(&s, p + 8 * i, 8);
        return (double)s;
    }
    default:
        fprintf(stderr, "fd_test_load: data type %d is not supported by the harness\n", (int)dt);
        abort();
    }
}

double fd_test_round(cudnnDataType_t dt, double v)
{
    unsigned char tmp[8];
    fd_test_store(dt, tmp, 0, v);
    return fd_test_load(dt, tmp, 0);
}

int fd_test_representable(cudnnDataType_t dt, double v)
{
    double r = fd_test_round(dt, v);
    return r == v || (isnan(r) && isnan(v));
}

/* ---- fills ---- */

void fd_fill_int(fd_rng_t *r, cudnnDataType_t dt, void *base, int64_t n, int lo, int hi,
                 double density)
{
    const int has_nonzero = lo != 0 || hi != 0;
    for (int64_t i = 0; i < n; i++) {
        int v = 0;
        if (has_nonzero && fd_rng_uniform(r) < density)
            do
                v = fd_rng_int(r, lo, hi);
            while (v == 0);
        fd_test_store(dt, base, i, (double)v);
    }
}

void fd_fill_real(fd_rng_t *r, cudnnDataType_t dt, void *base, int64_t n, double lo, double hi)
{
    for (int64_t i = 0; i < n; i++)
        fd_test_store(dt, base, i, lo + (hi - lo) * fd_rng_uniform(r));
}

/* ---- tolerance ---- */

double fd_unit_roundoff(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        return 0x1p-24;
    case CUDNN_DATA_DOUBLE:
        return 0x1p-53;
    case CUDNN_DATA_HALF:
        return 0x1p-11;
    case CUDNN_DATA_BFLOAT16:
        return 0x1p-8;
    default:
        return 0.0; /* integer types are exact */
    }
}

double fd_tolerance_tiny(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        return 0x1p-149;
    case CUDNN_DATA_DOUBLE:
        return 0x1p-1074;
    case CUDNN_DATA_HALF:
        return 0x1p-24;
    case CUDNN_DATA_BFLOAT16:
        return 0x1p-133;
    default:
        return 0.0;
    }
}

double fd_tolerance_ex(cudnnDataType_t out_dt, cudnnDataType_t acc_dt, double u_in, int64_t k,
                       double abs_sum, double want)
{
    if (k < 1)
        k = 1;
    double u_acc = fd_unit_roundoff(acc_dt), u_out = fd_unit_roundoff(out_dt);
    double tiny = fd_tolerance_tiny(out_dt) + (double)k * fd_tolerance_tiny(acc_dt);
    return FD_TOL_C * (2.0 * u_in + (double)k * u_acc) * fabs(abs_sum) + u_out * fabs(want) + tiny;
}

double fd_tolerance(cudnnDataType_t out_dt, cudnnDataType_t acc_dt, int64_t k, double abs_sum,
                    double want)
{
    return fd_tolerance_ex(out_dt, acc_dt, 0.0, k, abs_sum, want);
}

int fd_test_cpu_avx512(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}
