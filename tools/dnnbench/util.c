/* SPDX-License-Identifier: MIT */
/*
 * util.c - dnnbench's data types, fills, comparison and timing, shared by every op.
 *
 * Conversions are written here from the IEEE-754 encodings (round to nearest even) so the
 * driver checks the library with code that is not the library's. The tolerance is the one of
 * docs/testing.md; the timing loop is the one docs/dnnbench.md describes.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dnnbench.h"

double dnb_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- data types --------------------------------------------------------------------------- */

size_t dnb_dt_size(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return 8;
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_INT32:
        return 4;
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

const char *dnb_dt_short(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return "f64";
    case CUDNN_DATA_FLOAT:
        return "f32";
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
    default:
        return "?";
    }
}

/* A binary float with `ebits` exponent and `mbits` explicit mantissa bits, from a double,
 * rounded to nearest even; subnormals, overflow to infinity and NaN included. Integer work on
 * the double's bits (the ldexp / nearbyint form was a third of a 100 M-element f16 run). */
static uint32_t small_float_encode(double v, int ebits, int mbits)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    const uint32_t sign = (uint32_t)(b >> 63) << (ebits + mbits);
    const int bias = (1 << (ebits - 1)) - 1, de = (int)((b >> 52) & 0x7ff);
    const uint32_t inf = ((1u << ebits) - 1u) << mbits;
    const uint64_t frac = b & ((1ull << 52) - 1);
    if (de == 0x7ff)
        return frac ? sign | inf | (1u << (mbits - 1)) : sign | inf;
    if (de == 0) /* zero, or a double subnormal: far below half the smallest subnormal here */
        return sign;
    int e = de - 1023; /* |v| = sig 2^(e - 52), sig in [2^52, 2^53) */
    const uint64_t sig = frac | (1ull << 52);
    /* drop the bits below the type's quantum: 2^(e - mbits) when normal, 2^(1 - bias - mbits)
     * when subnormal */
    const int shift = 52 - mbits + (e < 1 - bias ? 1 - bias - e : 0);
    if (shift > 53) /* below a quarter of the smallest subnormal */
        return sign;
    uint64_t q = sig >> shift;
    const uint64_t rem = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    q += rem > half || (rem == half && (q & 1));
    if (e < 1 - bias) /* subnormal; q = 2^mbits is the smallest normal, encoded alike */
        return sign | (uint32_t)q;
    if (q == 1ull << (mbits + 1))
        q >>= 1, e++;
    if (e > bias)
        return sign | inf;
    return sign | ((uint32_t)(e + bias) << mbits) | ((uint32_t)q - (1u << mbits));
}

static double small_float_decode(uint32_t b, int ebits, int mbits)
{
    const int bias = (1 << (ebits - 1)) - 1;
    const uint32_t emask = (1u << ebits) - 1u, mmask = (1u << mbits) - 1u;
    const uint32_t e = (b >> mbits) & emask, m = b & mmask;
    const uint64_t s = (uint64_t)((b >> (ebits + mbits)) & 1u) << 63;
    if (e == emask)
        return m ? NAN : (s ? -INFINITY : INFINITY);
    if (e == 0) /* subnormal: m 2^(1 - bias - mbits), exact in double */
        return (s ? -1.0 : 1.0) * ldexp((double)m, 1 - bias - mbits);
    const uint64_t d = s | (uint64_t)((int)e - bias + 1023) << 52 | (uint64_t)m << (52 - mbits);
    double r;
    memcpy(&r, &d, sizeof r);
    return r;
}

static double saturate(double v, double lo, double hi)
{
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

void dnb_store(cudnnDataType_t dt, void *base, int64_t i, double v)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        ((double *)base)[i] = v;
        break;
    case CUDNN_DATA_FLOAT:
        ((float *)base)[i] = (float)v; /* the C conversion rounds to nearest even */
        break;
    case CUDNN_DATA_HALF:
        ((uint16_t *)base)[i] = (uint16_t)small_float_encode(v, 5, 10);
        break;
    case CUDNN_DATA_BFLOAT16:
        ((uint16_t *)base)[i] = (uint16_t)small_float_encode(v, 8, 7);
        break;
    case CUDNN_DATA_INT8:
        ((int8_t *)base)[i] = (int8_t)saturate(v, -128, 127);
        break;
    case CUDNN_DATA_UINT8:
        ((uint8_t *)base)[i] = (uint8_t)saturate(v, 0, 255);
        break;
    case CUDNN_DATA_INT32:
        ((int32_t *)base)[i] = (int32_t)saturate(v, -2147483648.0, 2147483647.0);
        break;
    default:
        break;
    }
}

double dnb_load(cudnnDataType_t dt, const void *base, int64_t i)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return ((const double *)base)[i];
    case CUDNN_DATA_FLOAT:
        return ((const float *)base)[i];
    case CUDNN_DATA_HALF:
        return small_float_decode(((const uint16_t *)base)[i], 5, 10);
    case CUDNN_DATA_BFLOAT16:
        return small_float_decode(((const uint16_t *)base)[i], 8, 7);
    case CUDNN_DATA_INT8:
        return ((const int8_t *)base)[i];
    case CUDNN_DATA_UINT8:
        return ((const uint8_t *)base)[i];
    case CUDNN_DATA_INT32:
        return ((const int32_t *)base)[i];
    default:
        return NAN;
    }
}

double dnb_round(cudnnDataType_t dt, double v)
{
    unsigned char tmp[8];
    dnb_store(dt, tmp, 0, v);
    return dnb_load(dt, tmp, 0);
}

double dnb_unit_roundoff(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return 0x1p-53;
    case CUDNN_DATA_FLOAT:
        return 0x1p-24;
    case CUDNN_DATA_HALF:
        return 0x1p-11;
    case CUDNN_DATA_BFLOAT16:
        return 0x1p-8;
    default:
        return 0.0;
    }
}

double dnb_exact_limit(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return 0x1p53;
    case CUDNN_DATA_FLOAT:
        return 0x1p24;
    case CUDNN_DATA_HALF:
        return 2048.0;
    case CUDNN_DATA_BFLOAT16:
        return 256.0;
    case CUDNN_DATA_INT32:
        return 2147483647.0;
    default:
        return 0.0;
    }
}

/* Smallest positive subnormal: the absolute floor of a tolerance. */
static double tiny_of(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return 0x1p-1074;
    case CUDNN_DATA_FLOAT:
        return 0x1p-149;
    case CUDNN_DATA_HALF:
        return 0x1p-24;
    case CUDNN_DATA_BFLOAT16:
        return 0x1p-133;
    default:
        return 0.0;
    }
}

/* ---- data ------------------------------------------------------------------------------------ */

static uint64_t rng_next(dnb_rng_t *r) /* splitmix64 */
{
    uint64_t z = (r->s += DNB_RNG_STEP);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(dnb_rng_t *r) /* [0, 1) */
{
    return (double)(rng_next(r) >> 11) * 0x1p-53;
}

uint64_t dnb_hash(const void *p, size_t n, uint64_t h) /* FNV-1a */
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* For the unchanged-input checks of whole tensors: four 8-byte lanes a step, each a multiply
 * and a shift apart, so hundreds of MB take tens of ms, not a second (FNV-1a's byte chain);
 * the tail and the lanes' merge go through dnb_hash. */
uint64_t dnb_hash_bulk(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    uint64_t l[4] = {h, h ^ 0x9e3779b97f4a7c15ull, h + 0x632be59bd9b4e019ull, ~h};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, b + i + 8 * k, 8);
            l[k] = (l[k] ^ w) * 0xff51afd7ed558ccdull;
            l[k] ^= l[k] >> 32;
        }
    return dnb_hash(b + i, n - i, dnb_hash(l, sizeof l, h));
}

uint64_t dnb_hash_str(const char *s)
{
    return dnb_hash(s, strlen(s), 0xcbf29ce484222325ull);
}

void dnb_fill_int(dnb_rng_t *r, double *v, int64_t n, double density)
{
    static const double vals[4] = {-2, -1, 1, 2};
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = rng_next(r);
        v[i] = (double)(x >> 11) * 0x1p-53 < density ? vals[x & 3] : 0.0;
    }
}

void dnb_fill_real(dnb_rng_t *r, double *v, int64_t n, cudnnDataType_t dt)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = dnb_round(dt, 2.0 * rng_unit(r) - 1.0);
}

/* ---- comparison -------------------------------------------------------------------------------
 */

/* dnb_compare over elements [i0, i1) into *res (zeroed by the caller, first_bad -1), counting
 * the zero references into *zeros. */
static void compare_range(const dnb_tol_t *t, const void *got, const double *want,
                          const double *abs_sum, int64_t i0, int64_t i1, dnb_cmp_t *res,
                          int64_t *zeros)
{
    const int is_int = dnb_unit_roundoff(t->out_dt) == 0.0;
    const double u_acc = dnb_unit_roundoff(t->acc_dt), u_out = dnb_unit_roundoff(t->out_dt);
    const double k = t->k > 0 ? (double)t->k : 1.0;
    const double tiny = tiny_of(t->out_dt) + k * tiny_of(t->acc_dt);
    double limit = dnb_exact_limit(t->out_dt), acc_limit = dnb_exact_limit(t->acc_dt);
    if (acc_limit > 0 && acc_limit < limit)
        limit = acc_limit;
    for (int64_t i = i0; i < i1; i++) {
        double g = dnb_load(t->out_dt, got, i), w = want[i], tol;
        if (is_int) {
            w = dnb_round(t->out_dt, w); /* integer outputs saturate; the rest is exact */
            tol = 0.0;
        } else if (t->exact && fabs(abs_sum[i]) <= limit) {
            tol = 0.0;
        } else {
            tol = t->scale *
                  (2.0 * (2.0 * t->u_in + k * u_acc) * fabs(abs_sum[i]) + u_out * fabs(w) + tiny);
            res->all_exact = 0;
        }
        *zeros += w == 0.0;
        double d = fabs(g - w);
        if (!(d <= tol)) { /* NaN fails too */
            if (res->bad++ == 0) {
                res->first_bad = i;
                res->first_got = g, res->first_want = w, res->first_tol = tol;
            }
        }
        if (d > res->max_err || isnan(d))
            res->max_err = isnan(d) ? INFINITY : d;
        double ratio = tol > 0 ? d / tol : d > 0 || isnan(d) ? INFINITY : 0.0;
        if (ratio > res->worst_ratio)
            res->worst_ratio = ratio;
    }
}

/* Fixed chunks, in OpenMP threads from DNB_PAR_MIN elements, merged in element order: the same
 * result at any thread count. */
void dnb_compare(const dnb_tol_t *t, const void *got, const double *want, const double *abs_sum,
                 int64_t n, dnb_cmp_t *res)
{
    enum { CHUNKS = 256 };
    dnb_cmp_t part[CHUNKS];
    int64_t zeros[CHUNKS] = {0};
    const int64_t step = (n + CHUNKS - 1) / CHUNKS;
#pragma omp parallel for schedule(static) if (n >= DNB_PAR_MIN)
    for (int c = 0; c < CHUNKS; c++) {
        memset(&part[c], 0, sizeof part[c]);
        part[c].first_bad = -1;
        part[c].all_exact = 1;
        const int64_t i0 = (int64_t)c * step, i1 = i0 + step < n ? i0 + step : n;
        if (i0 < i1)
            compare_range(t, got, want, abs_sum, i0, i1, &part[c], &zeros[c]);
    }
    memset(res, 0, sizeof *res);
    res->first_bad = -1;
    res->all_exact = 1;
    int64_t zsum = 0;
    for (int c = 0; c < CHUNKS; c++) {
        const dnb_cmp_t *q = &part[c];
        if (q->bad > 0 && res->bad == 0) {
            res->first_bad = q->first_bad;
            res->first_got = q->first_got, res->first_want = q->first_want;
            res->first_tol = q->first_tol;
        }
        res->bad += q->bad;
        res->all_exact = res->all_exact && q->all_exact;
        if (q->max_err > res->max_err)
            res->max_err = q->max_err;
        if (q->worst_ratio > res->worst_ratio)
            res->worst_ratio = q->worst_ratio;
        zsum += zeros[c];
    }
    res->zero_frac = n > 0 ? (double)zsum / (double)n : 0.0;
}

/* ---- timing ------------------------------------------------------------------------------------
 */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static unsigned char *flush_buf;
static size_t flush_size;
volatile unsigned char dnb_flush_sink;

/* Evicts the buffer sets from the cache by reading every line of a buffer of twice its size
 * (capped by --cold-bytes). Reads, not writes: dirty lines would be written back during the
 * next timed call and bill it for the flush. The buffer is written once, when allocated. */
static void flush_cache(const dnb_opts_t *o, const dnb_device_t *dev, void *stream)
{
    size_t want = 2 * dev->cache_bytes;
    if (want > o->cold_bytes)
        want = o->cold_bytes;
    if (dev->flush != NULL) {
        dev->flush(want, stream);
        return;
    }
    if (flush_size < want) {
        free(flush_buf);
        flush_buf = malloc(want);
        flush_size = flush_buf ? want : 0;
        if (flush_buf)
            memset(flush_buf, 1, flush_size);
    }
    if (flush_buf == NULL)
        return;
    uint64_t acc = 0;
    for (size_t i = 0; i + 8 <= flush_size; i += 64) {
        uint64_t v;
        memcpy(&v, flush_buf + i, sizeof v);
        acc += v;
    }
    dnb_flush_sink = (unsigned char)acc;
}

void dnb_cache_plan(const dnb_opts_t *o, const dnb_device_t *dev, size_t set_bytes, int *nsets,
                    int *flush)
{
    *nsets = 1;
    *flush = 0;
    if (o->cache_hot)
        return;
    size_t target = 2 * dev->cache_bytes;
    if (target > o->cold_bytes)
        target = o->cold_bytes;
    size_t budget = (size_t)1 << 30; /* buffer sets never take more than 1 GiB */
    size_t n = set_bytes ? (target + set_bytes - 1) / set_bytes : 1;
    size_t cap = set_bytes ? budget / set_bytes : 64;
    if (n > 64)
        n = 64;
    if (n > cap)
        n = cap;
    if (n < 1)
        n = 1;
    *nsets = (int)n;
    *flush = n * set_bytes < target; /* small problems: rotation alone cannot leave the cache */
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* --graph: G calls of one library, rotating the buffer sets, captured on its stream into one
 * CUDA graph; `iters` launches of the graph timed with events (each after the device is idle
 * and, for cold caches, the flush), the median / G is the graph time per call. G is --graph,
 * fewer when the plain calls are long (about 20 ms of work per launch is plenty to amortise a
 * launch; a graph of long calls would only make the run slower). A call that fails during
 * capture (not capturable: a synchronising or allocating call inside it) leaves a note and
 * no graph time; the plain times stand. */
static void measure_graph(const dnb_opts_t *o, dnb_timed_t *c, int nsets, int flush, int iters,
                          double *scratch)
{
    dnb_timing_t *t = c->out;
    const dnb_device_t *dev = c->dev;
    if (dev->graph_begin == NULL) /* the host device: dnnbench said so once, at the start */
        return;
    int g = o->graph;
    if (t->med_ms > 0) {
        double fit = 20.0 / t->med_ms;
        if (fit < g)
            g = fit < 1.0 ? 1 : (int)fit;
    }
    char why[160] = "";
    dev->sync();
    if (dev->graph_begin(c->stream, why, sizeof why)) {
        snprintf(t->graph_note, sizeof t->graph_note,
                 "graph: capture failed (%.120s); plain launches only", why);
        return;
    }
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    int done = 0;
    for (; done < g && st == CUDNN_STATUS_SUCCESS; done++)
        st = c->call(c->arg, done % nsets);
    void *exec = dev->graph_end(c->stream, st == CUDNN_STATUS_SUCCESS, why, sizeof why);
    if (exec == NULL) {
        if (st != CUDNN_STATUS_SUCCESS)
            snprintf(t->graph_note, sizeof t->graph_note,
                     "graph: call %d failed during capture (status %d: not capturable); plain "
                     "launches only",
                     done, (int)st);
        else
            snprintf(t->graph_note, sizeof t->graph_note,
                     "graph: capture failed (%.120s: not capturable); plain launches only", why);
        dev->sync();
        return;
    }
    /* one untimed launch: uploads the graph, first touches */
    int n = 0, failed = dev->graph_launch_ms(exec, c->stream) < 0;
    double spent = 0;
    for (int s = 0; s < iters && !failed; s++) {
        dev->sync();
        if (flush)
            flush_cache(o, dev, c->stream);
        double ms = dev->graph_launch_ms(exec, c->stream);
        if (ms < 0) {
            failed = 1;
            break;
        }
        scratch[n++] = ms / g;
        spent += ms;
        if (o->max_ms > 0 && n >= (iters < 3 ? iters : 3) && spent > o->max_ms)
            break;
    }
    dev->graph_destroy(exec);
    if (failed || n == 0) {
        snprintf(t->graph_note, sizeof t->graph_note,
                 "graph: cudaGraphLaunch failed; plain launches only");
        return;
    }
    t->graph_calls = g;
    t->graph_samples = n;
    t->graph_ms = median_of(scratch, n);
}

/*
 * --host-burst: the host time per call of CALLS calls issued back to back, as a training loop
 * issues them (the clock around the burst only; the device idle before it, the burst's work
 * awaited after it, outside the clock), the median over up to 21 bursts into host_med_ms. A
 * burst stays far below the launch queue's depth, so no call waits for the GPU; the library's
 * host-side state is warm, as it is between an application's back-to-back calls (the single-call
 * samples alternate with the other library's calls and the device-wide sync).
 */
static void measure_host_burst(const dnb_opts_t *o, dnb_timed_t *c, int nsets, int iters, double *scratch)
{
    const int bursts = iters < 21 ? iters : 21;
    int n = 0, set = 0;
    for (int b = 0; b < bursts; b++) {
        c->dev->sync();
        const double t0 = dnb_now_ms();
        for (int i = 0; i < o->host_burst; i++) {
            set = (set + 1) % nsets;
            if (c->call(c->arg, set) != CUDNN_STATUS_SUCCESS) {
                c->dev->sync();
                return; /* the single-call figure stands */
            }
        }
        scratch[n++] = (dnb_now_ms() - t0) / o->host_burst;
    }
    c->dev->sync();
    if (n > 0)
        c->out->host_med_ms = median_of(scratch, n);
}

void dnb_measure(const dnb_opts_t *o, dnb_timed_t *calls, int ncalls, int nsets, int flush)
{
    enum { MAX_SAMPLES = 1000 };
    int iters = o->iters < 1 ? 1 : o->iters > MAX_SAMPLES ? MAX_SAMPLES : o->iters;
    int min_samples = iters < 3 ? iters : 3;
    double *samples = malloc(sizeof(double) * (size_t)iters * (size_t)ncalls);
    double *hsamples = malloc(sizeof(double) * (size_t)iters * (size_t)ncalls);
    if (samples == NULL || hsamples == NULL) {
        free(samples), free(hsamples);
        for (int c = 0; c < ncalls; c++)
            calls[c].status = CUDNN_STATUS_ALLOC_FAILED;
        return;
    }
    int set = 0;
    /* Warm-up: first touches, lazy initialisation, clocks up. At least o->warmup calls each,
     * and on until 10 ms have passed (at most 50 calls). */
    for (int c = 0; c < ncalls; c++) {
        calls[c].status = CUDNN_STATUS_SUCCESS;
        double t0 = dnb_now_ms();
        for (int i = 0; i < 50 && (i < o->warmup || dnb_now_ms() - t0 < 10.0); i++) {
            /* bracketed like a sample: on an asynchronous device (cuda) this waits for the
             * call, so the warm-up never queues more than one call's work */
            calls[c].dev->start(calls[c].stream);
            cudnnStatus_t st = calls[c].call(calls[c].arg, i % nsets);
            (void)calls[c].dev->stop_ms(calls[c].stream);
            if (st != CUDNN_STATUS_SUCCESS) {
                calls[c].status = st;
                break;
            }
        }
    }
    double spent[8] = {0};
    int taken = 0;
    for (int s = 0; s < iters; s++) {
        int busy = 0;
        for (int c = 0; c < ncalls; c++) {
            if (calls[c].status != CUDNN_STATUS_SUCCESS)
                continue;
            set = (set + 1) % nsets;
            /* nothing of the other library (or of an earlier untimed call) is in flight */
            if (calls[c].dev->sync)
                calls[c].dev->sync();
            if (flush)
                flush_cache(o, calls[c].dev, calls[c].stream);
            calls[c].dev->start(calls[c].stream);
            cudnnStatus_t st = calls[c].call(calls[c].arg, set);
            double ms = calls[c].dev->stop_ms(calls[c].stream);
            if (st != CUDNN_STATUS_SUCCESS) {
                calls[c].status = st;
                continue;
            }
            samples[(size_t)c * (size_t)iters + (size_t)s] = ms;
            hsamples[(size_t)c * (size_t)iters + (size_t)s] =
                calls[c].dev->host_ms ? calls[c].dev->host_ms() : -1.0;
            spent[c < 8 ? c : 7] += ms;
            busy = 1;
        }
        if (!busy)
            break;
        taken = s + 1;
        int over = 1; /* every call past its time budget */
        for (int c = 0; c < ncalls && c < 8; c++)
            over &= spent[c] > o->max_ms;
        if (o->max_ms > 0 && taken >= min_samples && over)
            break;
    }
    for (int c = 0; c < ncalls; c++) {
        dnb_timing_t *t = calls[c].out;
        memset(t, 0, sizeof *t);
        if (calls[c].status != CUDNN_STATUS_SUCCESS || taken == 0)
            continue;
        double *v = samples + (size_t)c * (size_t)iters;
        qsort(v, (size_t)taken, sizeof *v, cmp_double);
        t->samples = taken;
        t->min_ms = v[0];
        t->med_ms = taken % 2 ? v[taken / 2] : 0.5 * (v[taken / 2 - 1] + v[taken / 2]);
        v = hsamples + (size_t)c * (size_t)iters;
        qsort(v, (size_t)taken, sizeof *v, cmp_double);
        t->host_med_ms = taken % 2 ? v[taken / 2] : 0.5 * (v[taken / 2 - 1] + v[taken / 2]);
    }
    if (o->host_burst > 0)
        for (int c = 0; c < ncalls; c++)
            if (calls[c].status == CUDNN_STATUS_SUCCESS && calls[c].out->samples > 0 && calls[c].dev->host_ms &&
                calls[c].dev->sync)
                measure_host_burst(o, &calls[c], nsets, iters, samples);
    if (o->graph > 0)
        for (int c = 0; c < ncalls; c++)
            if (calls[c].status == CUDNN_STATUS_SUCCESS && calls[c].out->samples > 0)
                measure_graph(o, &calls[c], nsets, flush, iters, samples);
    free(samples);
    free(hsamples);
}
