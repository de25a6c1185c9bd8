/* SPDX-License-Identifier: MIT */
/*
 * fd_test.h - the test harness every test program uses (DESIGN D9, contract §4.2).
 *
 * - Checks: FD_EXPECT(cond, fmt, ...) counts a failure and prints file:line and the message;
 *   fd_test_finish() prints "N passed, N failed" and returns the exit code.
 * - Guarded buffers: payload between two guard zones filled with 0xA5; outputs are poisoned
 *   (0xFF bytes: NaN for every float type) before a run; fd_buf_guards_ok() checks the guards
 *   byte for byte; fd_buf_hash() lets a test prove an input unchanged.
 * - Fills: integer fills with density control (exact comparison), uniform real fills; all from
 *   a seeded generator so a failing case can be replayed.
 * - Comparison against an oracle with the per-dtype tolerance of docs/testing.md.
 */
#ifndef FD_TEST_H_
#define FD_TEST_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cudnn.h"
#include "freednn.h"

/* ---- checks ---- */
extern int fd_test_passed, fd_test_failed;
void fd_expect_at(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define FD_EXPECT(cond, ...) fd_expect_at(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
/* Expect a cuDNN status; on mismatch prints both names and cudnnGetLastErrorString. */
#define FD_EXPECT_STATUS(expr, want) fd_expect_status_at((expr), (want), #expr, __FILE__, __LINE__)
void fd_expect_status_at(cudnnStatus_t got, cudnnStatus_t want, const char *expr, const char *file,
                         int line);
int fd_test_finish(void); /* prints the closing count line; returns 0 iff nothing failed */

/* ---- the four descriptors of one convolution call ---- */
typedef struct {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t cv;
} fd_conv_descs_t;
void fd_conv_descs_create(fd_conv_descs_t *d);  /* each creation checked */
void fd_conv_descs_destroy(fd_conv_descs_t *d); /* each destruction checked */

/* ---- guarded buffers ---- */
#define FD_GUARD_BYTES 4096
#define FD_GUARD_BYTE 0xA5
typedef struct {
    unsigned char *base; /* guard | payload | guard */
    void *data;          /* payload */
    size_t size;         /* payload bytes */
} fd_buf_t;
fd_buf_t fd_buf_alloc(size_t size);          /* guards filled, payload zeroed */
void fd_buf_free(fd_buf_t *b);
void fd_buf_poison(fd_buf_t *b);             /* payload = 0xFF bytes (NaN) */
int fd_buf_guards_ok(const fd_buf_t *b);     /* 1 when both guards are intact */
uint64_t fd_buf_hash(const fd_buf_t *b);     /* FNV-1a of the payload */

/* ---- fills (seeded, reproducible) ---- */
typedef struct { uint64_t s; } fd_rng_t;
void fd_rng_seed(fd_rng_t *r, uint64_t seed);
uint64_t fd_rng_next(fd_rng_t *r);
int fd_rng_int(fd_rng_t *r, int lo, int hi);  /* uniform in [lo, hi] */
double fd_rng_uniform(fd_rng_t *r);           /* uniform in [0, 1) */
/* Store element i of a buffer of dtype dt from a double (exact for representable values). */
void fd_test_store(cudnnDataType_t dt, void *base, int64_t i, double v);
double fd_test_load(cudnnDataType_t dt, const void *base, int64_t i);
/* Integers in [lo, hi], each element non-zero with probability `density` (else 0). */
void fd_fill_int(fd_rng_t *r, cudnnDataType_t dt, void *base, int64_t n, int lo, int hi, double density);
/* Uniform reals in [lo, hi), rounded to dt. */
void fd_fill_real(fd_rng_t *r, cudnnDataType_t dt, void *base, int64_t n, double lo, double hi);

/* ---- tolerance (docs/testing.md) ---- */
/* Unit round-off of a storage type: 2^-24 f32, 2^-53 f64, 2^-11 f16, 2^-8 bf16. */
double fd_unit_roundoff(cudnnDataType_t dt);
/* |got - want| <= c (2 u_in + K u_acc) sum|terms| + u_out |want| + tiny, c = 2. */
double fd_tolerance(cudnnDataType_t out_dt, cudnnDataType_t acc_dt, int64_t k, double abs_sum,
                    double want);

/* ---- additions (the conv tests use these; existing declarations above are frozen) ---- */
/* Seeds. FD_TEST_SEED (decimal or 0x-hex) replays one case: fd_test_seed_forced() returns 1
 * and fd_test_seed() returns it. FD_TEST_SWEEP_SEED changes the master seed of a sweep.
 * FD_TEST_SCALE (a positive number, default 1) multiplies the case counts of sweeps. */
/* 1 when the CPU has AVX-512F (the cpu rows built on src/cpu/sgemm_avx512.c run only then) */
int fd_test_cpu_avx512(void);

int fd_test_seed_forced(uint64_t *seed);
uint64_t fd_test_sweep_seed(uint64_t dflt);
double fd_test_scale(void);
/* splitmix64 of (a, b): derives independent per-case seeds from a master seed. */
uint64_t fd_test_mix(uint64_t a, uint64_t b);
/* Failures print at most FD_TEST_MAX_PRINT lines (FD_TEST_VERBOSE=1 lifts the cap). */
int fd_test_should_print(void);

/* Data types: short name for repro lines ("f32", "f64", "f16", "bf16", "s8", "s32", "u8"),
 * element size in bytes (0 for types the harness cannot store). */
const char *fd_test_dtype_short(cudnnDataType_t dt);
size_t fd_test_dtype_size(cudnnDataType_t dt);
/* The harness's own conversions, written from the IEEE-754 encodings, round to nearest even,
 * subnormals and overflow to infinity included; independent of the library's dtype.c. */
uint16_t fd_test_f16_from_double(double v);
double fd_test_f16_to_double(uint16_t h);
uint16_t fd_test_bf16_from_double(double v);
double fd_test_bf16_to_double(uint16_t b);
/* The value dt stores for v (what fd_test_store followed by fd_test_load gives). */
double fd_test_round(cudnnDataType_t dt, double v);
/* 1 when v is exactly representable in dt. */
int fd_test_representable(cudnnDataType_t dt, double v);

/* Tolerance with an input-rounding term: |got - want| <= c (2 u_in + K u_acc) abs_sum
 * + u_out |want| + tiny, c = FD_TOL_C; fd_tolerance() is this with u_in = 0.
 * tiny = smallest subnormal of out_dt + K * smallest subnormal of acc_dt (0 for integers). */
#define FD_TOL_C 2.0
#define FD_U_IN_TF32 0x1p-11 /* TF32 keeps 10 mantissa bits of each input */
double fd_tolerance_ex(cudnnDataType_t out_dt, cudnnDataType_t acc_dt, double u_in, int64_t k,
                       double abs_sum, double want);
double fd_tolerance_tiny(cudnnDataType_t dt);

#endif /* FD_TEST_H_ */
