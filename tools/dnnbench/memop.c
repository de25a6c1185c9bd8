/* SPDX-License-Identifier: MIT */
/*
 * memop.c - one (problem, direction) of a memory-bound op end to end (memop.h): the same steps
 * as op_conv.c's, over a list of tensors instead of conv's fixed x / w / y.
 *
 * The oracle is our library on a ref handle with DOUBLE tensors on the same values; derived
 * inputs (the y a backward reads, BN's saved statistics) come from the oracle's forward, rounded
 * to their type, so every library sees one consistent set of inputs. Problems above
 * --ref-max-gflop are timed, and with --vs their result is checked against ours with twice the
 * tolerance, as for conv.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memop.h"

/* ---- small helpers ---------------------------------------------------------------------- */

int dnb_mspec_add(dnb_mspec_t *s, const char *name, int role, int64_t count)
{
    if (s->n == DNB_MT_MAX) /* a programming error of an op file; the last slot is reused */
        s->n--;
    dnb_mt_t *t = &s->t[s->n];
    memset(t, 0, sizeof *t);
    t->name = name, t->role = role, t->count = count, t->traffic = 1;
    return s->n++;
}

cudnnDataType_t dnb_param_dt(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

static const float one_f = 1.0f, zero_f = 0.0f;
static const double one_d = 1.0, zero_d = 0.0;

const void *dnb_one(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? (const void *)&one_d : (const void *)&one_f;
}

const void *dnb_zero(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? (const void *)&zero_d : (const void *)&zero_f;
}

cudnnStatus_t dnb_mside_tensor(const dnb_mside_t *sd, cudnnTensorDescriptor_t *d, int64_t n,
                               int64_t c, int64_t h, int64_t w)
{
    cudnnStatus_t st = sd->lib->cudnnCreateTensorDescriptor(d);
    if (st != CUDNN_STATUS_SUCCESS) {
        *d = NULL;
        return st;
    }
    return sd->lib->cudnnSetTensor4dDescriptor(*d, sd->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                               sd->dt, (int)n, (int)c, (int)h, (int)w);
}

void dnb_mside_tensor_release(const dnb_mside_t *sd, cudnnTensorDescriptor_t *d)
{
    if (*d != NULL)
        sd->lib->cudnnDestroyTensorDescriptor(*d);
    *d = NULL;
}

void *dnb_mside_scratch(const dnb_mside_t *sd, size_t bytes)
{
    bytes = bytes > 0 ? bytes : 1;
    return sd->dev != NULL ? sd->dev->alloc(bytes) : malloc(bytes);
}

void dnb_mside_scratch_free(const dnb_mside_t *sd, void *ws)
{
    if (ws == NULL)
        return;
    if (sd->dev != NULL)
        sd->dev->release(ws);
    else
        free(ws);
}

static cudnnDataType_t mt_dt(const dnb_mt_t *t, cudnnDataType_t dt)
{
    return t->param ? dnb_param_dt(dt) : dt;
}

static size_t mt_bytes(const dnb_mt_t *t, cudnnDataType_t dt)
{
    return (size_t)t->count * dnb_dt_size(mt_dt(t, dt));
}

static int mt_find(const dnb_mspec_t *s, const char *name)
{
    for (int t = 0; t < s->n; t++)
        if (strcmp(s->t[t].name, name) == 0)
            return t;
    return -1;
}

static int is_output(const dnb_mt_t *t)
{
    return t->role != DNB_MT_IN;
}

/* ---- problem text ------------------------------------------------------------------------ */

static int is_sep(char c)
{
    return isspace((unsigned char)c) || c == ',';
}

int dnb_memop_parse(const char *text, const char *letters, int64_t *v, int *given,
                    dnb_field_fn field, void *ctx, char *err, size_t err_size)
{
    const size_t nl = strlen(letters);
    for (size_t i = 0; i < nl; i++)
        given[i] = 0, v[i] = 0;
    const char *p = text;
    while (is_sep(*p))
        p++;
    while (*p && !is_sep(*p)) {
        const char *at = strchr(letters, *p);
        if (at == NULL || !isdigit((unsigned char)p[1])) {
            int len = 0;
            while (p[len] && !is_sep(p[len]))
                len++;
            snprintf(err, err_size,
                     "at '%.*s': expected one of the letters '%s', each followed by "
                     "a number",
                     len, p, letters);
            return -1;
        }
        size_t i = (size_t)(at - letters);
        char *end;
        errno = 0;
        long long x = strtoll(p + 1, &end, 10);
        if (errno || x > INT32_MAX) {
            snprintf(err, err_size, "'%c' is too large", *p);
            return -1;
        }
        if (given[i]++) {
            snprintf(err, err_size, "'%c' is given twice", *p);
            return -1;
        }
        v[i] = x;
        p = end;
    }
    for (;;) {
        while (is_sep(*p))
            p++;
        if (*p == '\0')
            return 0;
        const char *tok = p;
        while (*p && !is_sep(*p))
            p++;
        size_t len = (size_t)(p - tok);
        const char *eq = memchr(tok, '=', len);
        size_t klen = eq ? (size_t)(eq - tok) : 0, vlen = eq ? len - klen - 1 : 0;
        char key[32], val[64];
        if (eq == NULL || klen == 0 || vlen == 0 || klen >= sizeof key || vlen >= sizeof val) {
            snprintf(err, err_size, "at '%.*s': expected a field key=value", (int)len, tok);
            return -1;
        }
        memcpy(key, tok, klen), key[klen] = '\0';
        memcpy(val, eq + 1, vlen), val[vlen] = '\0';
        if (field(ctx, key, val, err, err_size))
            return -1;
    }
}

int dnb_field_enum(const char *key, const char *value, const char *const *names, int *out,
                   char *err, size_t err_size)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], value) == 0) {
            *out = i;
            return 0;
        }
    size_t used = (size_t)snprintf(err, err_size, "%s=%s: %s takes", key, value, key);
    for (int i = 0; names[i] && used < err_size; i++)
        used += (size_t)snprintf(err + used, err_size - used, "%s %s", i ? "," : "", names[i]);
    return -1;
}

int dnb_field_double(const char *key, const char *value, double lo, double hi, double *out,
                     char *err, size_t err_size)
{
    char *end;
    double x = strtod(value, &end);
    if (end == value || *end || !(x >= lo && x <= hi)) {
        snprintf(err, err_size, "%s=%s: %s takes a number in [%g, %g]", key, value, key, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

int dnb_parse_nchw(const char *text, int64_t dims[4], dnb_field_fn field, void *ctx, char *err,
                   size_t err_size)
{
    int64_t v[4];
    int given[4];
    if (dnb_memop_parse(text, "nchw", v, given, field, ctx, err, err_size))
        return -1;
    if (!given[1] || !given[2]) {
        snprintf(err, err_size, "'c' and 'h' are required (e.g. n2c16h28w28)");
        return -1;
    }
    dims[0] = given[0] ? v[0] : 1, dims[1] = v[1], dims[2] = v[2], dims[3] = given[3] ? v[3] : v[2];
    for (int i = 0; i < 4; i++)
        if (dims[i] < 1) {
            snprintf(err, err_size, "n, c, h and w must be positive");
            return -1;
        }
    return 0;
}

void dnb_fmt_double(char *buf, size_t size, double v)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* ---- sides, fills, buffer sets ----------------------------------------------------------------
 */

static void side_fail(const dnb_lib_t *lib, cudnnStatus_t raw, const char *what,
                      dnb_side_result_t *r)
{
    char msg[448];
    dnb_lib_error(lib, raw, msg, sizeof msg);
    r->state = dnb_status_is_not_supported(dnb_status(lib, raw)) ? DNB_SKIPPED : DNB_FAILED;
    snprintf(r->reason, sizeof r->reason, "%s: %s", what, msg);
}

static void side_release(const dnb_memop_t *m, dnb_mside_t *sd)
{
    if (sd->lib != NULL)
        m->release(sd);
    memset(sd, 0, sizeof *sd);
}

/* dev: the device of the side's buffers, NULL for the ref oracle's host buffers. */
static int side_init(const dnb_memop_t *m, dnb_mside_t *sd, const dnb_lib_t *lib, cudnnHandle_t h,
                     const dnb_device_t *dev, const dnb_problem_t *p, int dir, cudnnDataType_t dt,
                     int nhwc, dnb_side_result_t *r)
{
    memset(sd, 0, sizeof *sd);
    const char *missing = m->missing(lib, p, dir);
    if (missing != NULL) {
        r->state = DNB_SKIPPED;
        snprintf(r->reason, sizeof r->reason, "%s does not export %s", lib->name, missing);
        return -1;
    }
    sd->lib = lib, sd->h = h, sd->dev = dev, sd->p = p, sd->dir = dir, sd->dt = dt, sd->nhwc = nhwc;
    const char *what = "creating descriptors";
    cudnnStatus_t st = m->setup(sd, &what);
    if (st != CUDNN_STATUS_SUCCESS) {
        side_fail(lib, st, what, r);
        side_release(m, sd);
        return -1;
    }
    return 0;
}

/* The values of one input, staged in its type tdt. Chunks of CHUNK elements, in parallel (fills
 * were most of a 103 M-element max-pool run's host time): each starts the generator where
 * a sequential walk would have it (DNB_RNG_STEP: dnb_fill_real / _int and the ops' fills draw
 * once an element; pool_fill draws none and hashes the chunk's state), so the values do not
 * depend on the thread count. */
static void fill_tensor(const dnb_memop_t *m, const dnb_opts_t *o, const dnb_problem_t *p, int dir,
                        const dnb_mt_t *t, int ti, uint64_t seed, cudnnDataType_t tdt, void *staged)
{
    const uint64_t s0 = seed ^ dnb_hash_str(t->name);
    enum { CHUNK = 4096 };
    const cudnnDataType_t real_dt = tdt == CUDNN_DATA_INT8 ? CUDNN_DATA_FLOAT : tdt;
#pragma omp parallel for schedule(static) if (t->count >= 16 * CHUNK)
    for (int64_t i0 = 0; i0 < t->count; i0 += CHUNK) {
        dnb_rng_t r = {s0 + (uint64_t)i0 * DNB_RNG_STEP};
        double v[CHUNK];
        int64_t n = t->count - i0 < CHUNK ? t->count - i0 : CHUNK;
        if (t->fill == DNB_FILL_OP && m->fill != NULL)
            m->fill(p, dir, ti, o->nhwc, o->fill_real, tdt, &r, i0, v, n);
        else if (o->fill_real)
            dnb_fill_real(&r, v, n, real_dt);
        else
            dnb_fill_int(&r, v, n, 1.0);
        for (int64_t i = 0; i < n; i++) {
            double x = v[i];
            if (t->fill == DNB_FILL_WIDE && o->fill_real)
                x *= 2.0;
            else if (t->fill == DNB_FILL_POSITIVE)
                x = dnb_round(real_dt, 1.0 + fabs(x));
            dnb_store(tdt, staged, i0 + i, x);
        }
    }
}

typedef struct msets {
    int n;
    void *(*p)[DNB_MT_MAX]; /* per set, one device pointer per tensor */
} msets_t;

static void sets_free(msets_t *b, const dnb_mspec_t *s, const dnb_device_t *dev)
{
    for (int i = 0; i < b->n; i++)
        for (int t = 0; t < s->n; t++)
            dev->release(b->p[i][t]);
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* Grows the sets to n: inputs and in-out tensors copies of the staged values, outputs zeroed;
 * 0, or -1 when memory runs out. */
static int sets_grow(msets_t *b, const dnb_mspec_t *s, const dnb_device_t *dev, cudnnDataType_t dt,
                     int n, void *const *staged)
{
    if (n <= b->n)
        return 0;
    void *(*p)[DNB_MT_MAX] = realloc(b->p, sizeof *p * (size_t)n);
    if (p == NULL)
        return -1;
    b->p = p;
    while (b->n < n) {
        void **set = b->p[b->n];
        memset(set, 0, sizeof(void *) * DNB_MT_MAX);
        for (int t = 0; t < s->n; t++) {
            size_t bytes = mt_bytes(&s->t[t], dt);
            if ((set[t] = dev->alloc(bytes)) == NULL) {
                for (int u = 0; u < t; u++)
                    dev->release(set[u]);
                return -1;
            }
            if (s->t[t].role == DNB_MT_OUT)
                dev->set_bytes(set[t], 0, bytes);
            else
                dev->upload(set[t], staged[t], bytes);
        }
        b->n++;
    }
    return 0;
}

/* Set 0 made ready for a checked call: in-out tensors back to their initial values, outputs
 * poisoned (0xFF bytes: NaN in every float type), so an element a call forgets shows. */
static void set_prepare(const msets_t *b, const dnb_mspec_t *s, const dnb_device_t *dev,
                        cudnnDataType_t dt, void *const *staged)
{
    for (int t = 0; t < s->n; t++) {
        size_t bytes = mt_bytes(&s->t[t], dt);
        if (s->t[t].role == DNB_MT_OUT)
            dev->set_bytes(b->p[0][t], 0xff, bytes);
        else if (s->t[t].role == DNB_MT_INOUT)
            dev->upload(b->p[0][t], staged[t], bytes);
    }
}

/* A hash of the inputs of set 0 as they are on the device. */
static uint64_t inputs_hash(const msets_t *b, const dnb_mspec_t *s, const dnb_device_t *dev,
                            cudnnDataType_t dt, void *tmp)
{
    uint64_t h = 1;
    for (int t = 0; t < s->n; t++) {
        if (s->t[t].role != DNB_MT_IN)
            continue;
        size_t bytes = mt_bytes(&s->t[t], dt);
        dev->download(tmp, b->p[0][t], bytes);
        h = dnb_hash_bulk(tmp, bytes, h);
    }
    return h;
}

/* The test hook --inject-error=input: one bit of set 0's first input flipped on the device
 * behind the call's back, past the hash's 32-byte steps where the tensor has a tail. */
static void inject_input(const msets_t *b, const dnb_mspec_t *s, const dnb_device_t *dev,
                         cudnnDataType_t dt, void *tmp)
{
    for (int t = 0; t < s->n; t++)
        if (s->t[t].role == DNB_MT_IN) {
            size_t bytes = mt_bytes(&s->t[t], dt);
            dev->download(tmp, b->p[0][t], bytes);
            ((unsigned char *)tmp)[bytes - 1] ^= 0x10;
            dev->upload(b->p[0][t], tmp, bytes);
            return;
        }
}

/* ---- derived inputs and the oracle --------------------------------------------------------- */

/* Derived inputs: the outputs of spec.derive_dir's call on this direction's inputs (matched by
 * name; inputs it needs that this direction lacks are filled as usual), rounded to their type.
 * With use_ref: the ref handle in DOUBLE (the oracle's values); else our backend in the tested
 * type (perf runs, where the values need only be realistic). */
static int derive(const dnb_memop_t *m, const dnb_ctx_t *ctx, const dnb_problem_t *p,
                  const dnb_mspec_t *s, void **staged, uint64_t seed, int use_ref,
                  dnb_side_result_t *r)
{
    const dnb_opts_t *o = ctx->o;
    const cudnnDataType_t sdt = o->dt->storage, dt = use_ref ? CUDNN_DATA_DOUBLE : sdt;
    const dnb_device_t *dev = ctx->dev;
    dnb_mspec_t ss;
    memset(&ss, 0, sizeof ss);
    m->spec(p, s->derive_dir, &ss);
    void *host[DNB_MT_MAX] = {0}, *dbuf[DNB_MT_MAX] = {0}, *args[DNB_MT_MAX] = {0};
    dnb_mside_t sd = {0};
    int rc = -1;
    for (int k = 0; k < ss.n; k++) {
        const dnb_mt_t *t = &ss.t[k];
        const cudnnDataType_t tdt = mt_dt(t, dt);
        if ((host[k] = malloc(mt_bytes(t, dt) + 1)) == NULL)
            goto nomem;
        if (t->role == DNB_MT_OUT)
            continue;
        int j = mt_find(s, t->name);
        if (j >= 0 && s->t[j].role != DNB_MT_OUT && !s->t[j].derived) {
#pragma omp parallel for schedule(static) if (t->count >= DNB_PAR_MIN)
            for (int64_t i = 0; i < t->count; i++)
                dnb_store(tdt, host[k], i, dnb_load(mt_dt(&s->t[j], sdt), staged[j], i));
        } else {
            fill_tensor(m, o, p, s->derive_dir, t, k, seed, tdt, host[k]);
        }
    }
    if (side_init(m, &sd, ctx->lib, use_ref ? ctx->h_ref : ctx->h, use_ref ? NULL : dev, p,
                  s->derive_dir, dt, o->nhwc, r))
        goto fail;
    for (int k = 0; k < ss.n; k++) {
        if (use_ref) { /* ref is a host backend */
            args[k] = host[k];
            continue;
        }
        size_t bytes = mt_bytes(&ss.t[k], dt);
        if ((dbuf[k] = dev->alloc(bytes)) == NULL)
            goto nomem;
        dev->upload(dbuf[k], host[k], bytes);
        args[k] = dbuf[k];
    }
    cudnnStatus_t st = m->call(&sd, args);
    if (st != CUDNN_STATUS_SUCCESS) {
        side_fail(ctx->lib, st,
                  use_ref ? "the ref call making the derived inputs"
                          : "the call making the derived inputs",
                  r);
        goto fail;
    }
    for (int j = 0; j < s->n; j++) {
        if (!s->t[j].derived)
            continue;
        int k = mt_find(&ss, s->t[j].name);
        if (k < 0 || ss.t[k].role == DNB_MT_IN) {
            r->state = DNB_FAILED;
            snprintf(r->reason, sizeof r->reason, "dnnbench: no output '%s' to derive",
                     s->t[j].name);
            goto fail;
        }
        if (!use_ref)
            dev->download(host[k], dbuf[k], mt_bytes(&ss.t[k], dt));
        const cudnnDataType_t from = mt_dt(&ss.t[k], dt), to = mt_dt(&s->t[j], sdt);
#pragma omp parallel for schedule(static) if (s->t[j].count >= DNB_PAR_MIN)
        for (int64_t i = 0; i < s->t[j].count; i++)
            dnb_store(to, staged[j], i, dnb_load(from, host[k], i));
    }
    rc = 0;
    goto fail;
nomem:
    r->state = DNB_SKIPPED;
    snprintf(r->reason, sizeof r->reason, "cannot allocate the buffers of the derived inputs");
fail:
    side_release(m, &sd);
    for (int k = 0; k < ss.n; k++) {
        free(host[k]);
        if (dbuf[k])
            dev->release(dbuf[k]);
    }
    if (rc) {
        char tmp[sizeof r->reason];
        snprintf(tmp, sizeof tmp, "derived inputs: %.480s", r->reason);
        snprintf(r->reason, sizeof r->reason, "%s", tmp);
    }
    return rc;
}

/* One call of the oracle (ref, DOUBLE): inputs v[t] (in-out tensors copied into out[t]),
 * results into out[t]. With absolute: linear inputs replaced by |value|. */
static int oracle_call(const dnb_memop_t *m, const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir,
                       const dnb_mspec_t *s, double *const *in, double *const *out, int absolute,
                       dnb_side_result_t *r)
{
    dnb_mside_t sd;
    void *args[DNB_MT_MAX] = {0};
    double *tmp[DNB_MT_MAX] = {0};
    int rc = -1;
    if (side_init(m, &sd, ctx->lib, ctx->h_ref, NULL, p, dir, CUDNN_DATA_DOUBLE, ctx->o->nhwc, r))
        return -1;
    for (int t = 0; t < s->n; t++) {
        const dnb_mt_t *mt = &s->t[t];
        const int abs_it = absolute && mt->linear;
        if (mt->role == DNB_MT_OUT) {
            args[t] = out[t];
        } else if (mt->role == DNB_MT_INOUT) {
#pragma omp parallel for schedule(static) if (mt->count >= DNB_PAR_MIN)
            for (int64_t i = 0; i < mt->count; i++)
                out[t][i] = abs_it ? fabs(in[t][i]) : in[t][i];
            args[t] = out[t];
        } else if (abs_it) {
            if ((tmp[t] = malloc(sizeof(double) * (size_t)mt->count + 1)) == NULL) {
                r->state = DNB_SKIPPED;
                snprintf(r->reason, sizeof r->reason, "cannot allocate the oracle's buffers");
                goto done;
            }
#pragma omp parallel for schedule(static) if (mt->count >= DNB_PAR_MIN)
            for (int64_t i = 0; i < mt->count; i++)
                tmp[t][i] = fabs(in[t][i]);
            args[t] = tmp[t];
        } else {
            args[t] = in[t];
        }
    }
    cudnnStatus_t st = m->call(&sd, args);
    if (st != CUDNN_STATUS_SUCCESS) {
        side_fail(ctx->lib, st,
                  absolute ? "oracle: the ref call on |inputs|" : "oracle: the ref call", r);
        if (r->state == DNB_SKIPPED) /* ref computes every problem: a refusal is a failure here */
            r->state = DNB_FAILED;
        goto done;
    }
    rc = 0;
done:
    side_release(m, &sd);
    for (int t = 0; t < s->n; t++)
        free(tmp[t]);
    return rc;
}

/* Problems above --ref-max-gflop with --vs and abs_oracle: S from our backend in the tested type
 * on |linear inputs| (the caller pads it by its own rounding). */
static int abs_on_ours(const dnb_memop_t *m, const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir,
                       const dnb_mspec_t *s, void *const *staged, double *const *S,
                       dnb_side_result_t *r)
{
    const cudnnDataType_t dt = ctx->o->dt->storage;
    const dnb_device_t *dev = ctx->dev;
    dnb_mside_t sd;
    void *d[DNB_MT_MAX] = {0}, *h = NULL;
    int rc = -1;
    if (side_init(m, &sd, ctx->lib, ctx->h, dev, p, dir, dt, ctx->o->nhwc, r))
        return -1;
    for (int t = 0; t < s->n; t++) {
        const dnb_mt_t *mt = &s->t[t];
        const size_t bytes = mt_bytes(mt, dt);
        free(h);
        if ((d[t] = dev->alloc(bytes)) == NULL || (h = malloc(bytes + 1)) == NULL) {
            r->state = DNB_SKIPPED;
            snprintf(r->reason, sizeof r->reason, "cannot allocate the buffers of sum|terms|");
            goto done;
        }
        if (mt->role == DNB_MT_OUT)
            continue;
#pragma omp parallel for schedule(static) if (mt->count >= DNB_PAR_MIN)
        for (int64_t i = 0; i < mt->count; i++) {
            double v = dnb_load(mt_dt(mt, dt), staged[t], i);
            dnb_store(mt_dt(mt, dt), h, i, mt->linear ? fabs(v) : v);
        }
        dev->upload(d[t], h, bytes);
    }
    cudnnStatus_t st = m->call(&sd, d);
    if (st != CUDNN_STATUS_SUCCESS) {
        side_fail(ctx->lib, st, "sum|terms| on our backend", r);
        goto done;
    }
    for (int t = 0; t < s->n; t++) {
        if (!is_output(&s->t[t]))
            continue;
        dev->download(h, d[t], mt_bytes(&s->t[t], dt));
#pragma omp parallel for schedule(static) if (s->t[t].count >= DNB_PAR_MIN)
        for (int64_t i = 0; i < s->t[t].count; i++)
            S[t][i] = fabs(dnb_load(mt_dt(&s->t[t], dt), h, i));
    }
    rc = 0;
done:
    side_release(m, &sd);
    for (int t = 0; t < s->n; t++)
        if (d[t])
            dev->release(d[t]);
    free(h);
    return rc;
}

/* ---- comparison ---------------------------------------------------------------------------- */

/* The test hook (--inject-error): one wrong element in the middle, as a broken kernel makes. */
static void inject_error(cudnnDataType_t dt, void *out, int64_t n)
{
    if (n > 0) {
        double v = dnb_load(dt, out, n / 2);
        dnb_store(dt, out, n / 2, v + 1.0 + fabs(v));
    }
}

/* Every output against want under tol (scaled); the worst ratio, the failures (the first
 * failing tensor named in the reason) and the primary output's zero fraction. */
static void compare_all(const dnb_mspec_t *s, const dnb_tol_t *tol, double scale, void *const *got,
                        double *const *want, double *const *S, const char *against,
                        dnb_side_result_t *r, double *zero_frac)
{
    r->err_ratio = 0, r->max_err = 0, r->bad = 0;
    int first = -1;
    dnb_cmp_t first_cmp = {0};
    for (int t = 0; t < s->n; t++) {
        if (!is_output(&s->t[t]))
            continue;
        dnb_tol_t tt = tol[t];
        tt.scale *= scale;
        dnb_cmp_t c;
        dnb_compare(&tt, got[t], want[t], S[t], s->t[t].count, &c);
        if (c.worst_ratio > r->err_ratio)
            r->err_ratio = c.worst_ratio;
        if (c.max_err > r->max_err)
            r->max_err = c.max_err;
        r->bad += c.bad;
        if (c.bad && first < 0)
            first = t, first_cmp = c;
        if (t == s->primary && zero_frac)
            *zero_frac = c.zero_frac;
    }
    if (first >= 0) {
        r->state = DNB_FAILED;
        snprintf(r->reason, sizeof r->reason,
                 "%s: %" PRId64 " of %" PRId64 " elements out of tolerance against %s; first at "
                 "%" PRId64 ": got %.9g want %.9g tol %.3g%s",
                 s->t[first].name, first_cmp.bad, s->t[first].count, against, first_cmp.first_bad,
                 first_cmp.first_got, first_cmp.first_want, first_cmp.first_tol,
                 r->bad > first_cmp.bad ? " (other outputs fail too)" : "");
    }
}

/* ---- one (problem, direction) -----------------------------------------------------------------
 */

typedef struct timed_arg {
    const dnb_memop_t *m;
    dnb_mside_t *sd;
    const msets_t *b;
} timed_arg_t;

static cudnnStatus_t timed_call(void *arg, int set)
{
    const timed_arg_t *a = arg;
    return a->m->call(a->sd, a->b->p[set]);
}

void dnb_memop_run(const dnb_memop_t *m, const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir,
                   dnb_row_t *row)
{
    const dnb_opts_t *o = ctx->o;
    const dnb_dt_t *dt = o->dt;
    const cudnnDataType_t sdt = dt->storage;
    const int check = (o->mode & DNB_MODE_CORR) != 0;
    const int ref_small = row->flop <= o->ref_max_gflop * 1e9;
    const int need_want = check || ctx->vs != NULL;
    const int use_ref = need_want && ref_small;
    dnb_side_result_t *ours = &row->ours, *theirs = &row->theirs;
    dnb_mspec_t s;
    memset(&s, 0, sizeof s);
    m->spec(p, dir, &s);

    dnb_mside_t so = {0}, sv = {0};
    msets_t b = {0};
    void *staged[DNB_MT_MAX] = {0}, *got[DNB_MT_MAX] = {0}, *got_vs[DNB_MT_MAX] = {0};
    double *in[DNB_MT_MAX] = {0}, *want[DNB_MT_MAX] = {0}, *S[DNB_MT_MAX] = {0};
    dnb_tol_t tol[DNB_MT_MAX];
    void *tmp = NULL;
    int vs_ok = 0, have_want = 0;
    size_t set_bytes = 0, max_bytes = 0;
    for (int t = 0; t < s.n; t++) {
        size_t bytes = mt_bytes(&s.t[t], sdt);
        set_bytes += bytes;
        max_bytes = bytes > max_bytes ? bytes : max_bytes;
    }

    /* 1. descriptors: ours, then theirs */
    ours->ran = 1;
    if (side_init(m, &so, ctx->lib, ctx->h, ctx->dev, p, dir, sdt, o->nhwc, ours))
        goto done;
    if (ctx->vs) {
        theirs->ran = 1;
        vs_ok = !side_init(m, &sv, ctx->vs, ctx->h_vs, ctx->dev, p, dir, sdt, o->nhwc, theirs);
        if (vs_ok) { /* until their call is checked below */
            theirs->state = DNB_SKIPPED;
            snprintf(theirs->reason, sizeof theirs->reason,
                     "not run: freednn's line stopped first");
        }
    }
    if (check && !use_ref && !ctx->vs && !(o->mode & DNB_MODE_PERF)) { /* nothing to learn */
        ours->state = DNB_SKIPPED;
        snprintf(ours->reason, sizeof ours->reason,
                 "correctness not checked: %.2f GFLOP is above --ref-max-gflop=%g (too slow for "
                 "ref); not run",
                 row->flop * 1e-9, o->ref_max_gflop);
        goto done;
    }

    /* 2. data: staged inputs (and in-out initial values), then the derived ones */
    char key[256];
    snprintf(key, sizeof key, "%s %s %s", row->problem, row->dir, dt->name);
    const uint64_t seed = dnb_hash_str(key);
    tmp = malloc(max_bytes + 1);
    if (tmp == NULL)
        goto nomem;
    for (int t = 0; t < s.n; t++) { /* staged: inputs and initial values; got: results */
        const size_t bytes = mt_bytes(&s.t[t], sdt);
        if (s.t[t].role != DNB_MT_OUT && (staged[t] = malloc(bytes + 1)) == NULL)
            goto nomem;
        if (is_output(&s.t[t]) && (got[t] = malloc(bytes + 1)) == NULL)
            goto nomem;
        if (s.t[t].role != DNB_MT_OUT && !s.t[t].derived)
            fill_tensor(m, o, p, dir, &s.t[t], t, seed, mt_dt(&s.t[t], sdt), staged[t]);
    }
    if (s.derive_dir >= 0 && derive(m, ctx, p, &s, staged, seed, use_ref, ours))
        goto done;

    /* 3. the oracle: want (and with abs_oracle S) from ref in DOUBLE */
    if (need_want) {
        for (int t = 0; t < s.n; t++) {
            const size_t nd = sizeof(double) * (size_t)s.t[t].count + 1;
            if (s.t[t].role != DNB_MT_OUT) {
                if ((in[t] = malloc(nd)) == NULL)
                    goto nomem;
#pragma omp parallel for schedule(static) if (s.t[t].count >= DNB_PAR_MIN)
                for (int64_t i = 0; i < s.t[t].count; i++)
                    in[t][i] = dnb_load(mt_dt(&s.t[t], sdt), staged[t], i);
            }
            if (is_output(&s.t[t]) &&
                ((want[t] = malloc(nd)) == NULL || (S[t] = calloc(1, nd)) == NULL))
                goto nomem;
        }
        if (use_ref) {
            if (oracle_call(m, ctx, p, dir, &s, in, want, 0, ours) ||
                (s.abs_oracle && oracle_call(m, ctx, p, dir, &s, in, S, 1, ours)))
                goto done;
            have_want = 1;
            snprintf(row->reference, sizeof row->reference, "ref");
        } else if (s.abs_oracle && abs_on_ours(m, ctx, p, dir, &s, staged, S, ours)) {
            goto done;
        }
    }

    /* 4. the checked call: outputs poisoned, inputs hashed before and after */
    if (sets_grow(&b, &s, ctx->dev, sdt, 1, staged)) {
        ours->state = DNB_SKIPPED;
        snprintf(ours->reason, sizeof ours->reason, "cannot allocate %zu bytes of tensors",
                 set_bytes);
        goto done;
    }
    uint64_t h_before = inputs_hash(&b, &s, ctx->dev, sdt, tmp);
    set_prepare(&b, &s, ctx->dev, sdt, staged);
    cudnnStatus_t st = m->call(&so, b.p[0]);
    if (st != CUDNN_STATUS_SUCCESS) {
        side_fail(ctx->lib, st, "the call", ours);
        goto done;
    }
    for (int t = 0; t < s.n; t++)
        if (is_output(&s.t[t]))
            ctx->dev->download(got[t], b.p[0][t], mt_bytes(&s.t[t], sdt));
    if (o->inject_error == 1)
        inject_error(mt_dt(&s.t[s.primary], sdt), got[s.primary], s.t[s.primary].count);
    if (o->inject_error == 3)
        inject_input(&b, &s, ctx->dev, sdt, tmp);
    ours->state = DNB_EXECUTED;
    if (inputs_hash(&b, &s, ctx->dev, sdt, tmp) != h_before) {
        ours->state = DNB_FAILED;
        snprintf(ours->reason, sizeof ours->reason, "the call modified its inputs");
        goto done;
    }

    /* 5. tolerances: the op's K and S; without ref, ours is the reference of theirs */
    if (need_want) {
        if (!have_want)
            for (int t = 0; t < s.n; t++)
                if (is_output(&s.t[t]))
#pragma omp parallel for schedule(static) if (s.t[t].count >= DNB_PAR_MIN)
                    for (int64_t i = 0; i < s.t[t].count; i++)
                        want[t][i] = dnb_load(mt_dt(&s.t[t], sdt), got[t], i);
        void *tol_cache = NULL;
        dnb_mtol_args_t a = {p,
                             dir,
                             o->nhwc,
                             o->fill_real,
                             &s,
                             (const double *const *)in,
                             (const double *const *)want,
                             &tol_cache};
        for (int t = 0; t < s.n; t++) {
            if (!is_output(&s.t[t]))
                continue;
            tol[t] = (dnb_tol_t){mt_dt(&s.t[t], sdt), dt->compute, 0.0, 1, 1.0, 0};
            m->tolerance(&a, t, S[t], &tol[t]);
            if (!have_want && s.abs_oracle) { /* S came from the tested type: pad its rounding */
                double pad = 1.0 + 2.0 * (double)tol[t].k * dnb_unit_roundoff(tol[t].out_dt);
#pragma omp parallel for schedule(static) if (s.t[t].count >= DNB_PAR_MIN)
                for (int64_t i = 0; i < s.t[t].count; i++)
                    S[t][i] *= pad;
            }
        }
        free(tol_cache);
    }
    if (have_want) {
        compare_all(&s, tol, 1.0, got, want, S, "ref", ours, &row->zero_frac);
        if (ours->state != DNB_FAILED) {
            ours->state = row->zero_frac > 0.95 ? DNB_MISTRUSTED : DNB_PASSED;
            if (ours->state == DNB_MISTRUSTED)
                snprintf(ours->reason, sizeof ours->reason, "%.1f%% of the reference %s is zero",
                         100.0 * row->zero_frac, s.t[s.primary].name);
        }
    } else if (check) {
        ours->state = DNB_SKIPPED;
        snprintf(
            ours->reason, sizeof ours->reason,
            "correctness not checked: %.2f GFLOP is above --ref-max-gflop=%g (too slow for ref)",
            row->flop * 1e-9, o->ref_max_gflop);
    }

    /* 6. theirs, on the same inputs: against ref, or against ours when ref cannot run */
    if (vs_ok) {
        for (int t = 0; t < s.n; t++)
            if (is_output(&s.t[t]) && (got_vs[t] = malloc(mt_bytes(&s.t[t], sdt) + 1)) == NULL) {
                theirs->state = DNB_SKIPPED;
                snprintf(theirs->reason, sizeof theirs->reason, "cannot allocate their outputs");
                vs_ok = 0;
                goto perf;
            }
        theirs->reason[0] = '\0';
        set_prepare(&b, &s, ctx->dev, sdt, staged);
        st = m->call(&sv, b.p[0]);
        if (st != CUDNN_STATUS_SUCCESS) {
            side_fail(ctx->vs, st, "the call", theirs);
            vs_ok = 0;
            goto perf;
        }
        for (int t = 0; t < s.n; t++)
            if (is_output(&s.t[t]))
                ctx->vs_dev->download(got_vs[t], b.p[0][t], mt_bytes(&s.t[t], sdt));
        if (o->inject_error == 2)
            inject_error(mt_dt(&s.t[s.primary], sdt), got_vs[s.primary], s.t[s.primary].count);
        theirs->state = DNB_EXECUTED;
        double zf = 0;
        if (inputs_hash(&b, &s, ctx->dev, sdt, tmp) != h_before) {
            theirs->state = DNB_FAILED;
            snprintf(theirs->reason, sizeof theirs->reason, "the call modified its inputs");
            vs_ok = 0;
            goto perf;
        }
        compare_all(&s, tol, have_want ? 1.0 : 2.0, got_vs, want, S, have_want ? "ref" : "freednn",
                    theirs, &zf);
        if (theirs->state != DNB_FAILED && have_want) {
            theirs->state = zf > 0.95 ? DNB_MISTRUSTED : DNB_PASSED;
            if (theirs->state == DNB_MISTRUSTED)
                snprintf(theirs->reason, sizeof theirs->reason,
                         "%.1f%% of the reference %s is zero", 100.0 * zf, s.t[s.primary].name);
        } else if (theirs->state != DNB_FAILED) {
            snprintf(theirs->reason, sizeof theirs->reason,
                     "agrees with freednn (worst %.3g of tolerance)", theirs->err_ratio);
        }
    }

perf:
    /* 7. timing: buffer sets rotated (and the cache flushed when they are few) */
    if ((o->mode & DNB_MODE_PERF) && ours->state != DNB_FAILED) {
        int nsets, flush;
        dnb_cache_plan(o, ctx->dev, set_bytes, &nsets, &flush);
        while (nsets > 1 && sets_grow(&b, &s, ctx->dev, sdt, nsets, staged))
            nsets /= 2, flush = 1;
        timed_arg_t ao = {m, &so, &b}, av = {m, &sv, &b};
        dnb_timed_t calls[2] = {{timed_call, &ao, ctx->dev, &ours->t, 0, ctx->stream},
                                {timed_call, &av, ctx->vs_dev, &theirs->t, 0, ctx->vs_stream}};
        dnb_measure(o, calls, vs_ok ? 2 : 1, b.n < nsets ? b.n : nsets, flush);
        if (calls[0].status != CUDNN_STATUS_SUCCESS)
            side_fail(ctx->lib, calls[0].status, "a timed call", ours);
        if (vs_ok && calls[1].status != CUDNN_STATUS_SUCCESS)
            side_fail(ctx->vs, calls[1].status, "a timed call", theirs);
    }
    goto done;

nomem:
    ours->state = DNB_SKIPPED;
    snprintf(ours->reason, sizeof ours->reason, "cannot allocate host buffers for this problem");
done:
    side_release(m, &so);
    side_release(m, &sv);
    sets_free(&b, &s, ctx->dev);
    for (int t = 0; t < DNB_MT_MAX; t++) {
        free(staged[t]), free(got[t]), free(got_vs[t]);
        free(in[t]), free(want[t]), free(S[t]);
    }
    free(tmp);
}

/* ---- bytes and --impl -------------------------------------------------------------------- */

double dnb_memop_bytes(const dnb_memop_t *m, const dnb_problem_t *p, int dir, const dnb_dt_t *dt)
{
    dnb_mspec_t s;
    memset(&s, 0, sizeof s);
    m->spec(p, dir, &s);
    double bytes = 0;
    for (int t = 0; t < s.n; t++)
        if (s.t[t].traffic)
            bytes += (double)mt_bytes(&s.t[t], dt->storage) * (s.t[t].role == DNB_MT_INOUT ? 2 : 1);
    return bytes;
}

/* The FD_OP_IMPL rows of src/impls.def, as text (dnnbench sees the table, not the library). */
#define FD_CONV_IMPL(name, backend, dir, algos, det)
#define FD_OP_IMPL(name, backend, op) {#name, #backend, #op},
static const struct {
    const char *name, *backend, *op;
} op_rows[] = {
#include "../../src/impls.def"
};
#undef FD_CONV_IMPL
#undef FD_OP_IMPL

static int row_backend(const char *b)
{
    return strcmp(b, "FD_BACKEND_REF") == 0   ? FREEDNN_BACKEND_REF
           : strcmp(b, "FD_BACKEND_CPU") == 0 ? FREEDNN_BACKEND_CPU
                                              : FREEDNN_BACKEND_CUDA;
}

/* The direction of this op that a row's op enum serves, or -1. */
static int row_dir(const dnb_memop_t *m, const dnb_op_t *op, const char *row_op)
{
    for (int i = 0; m->impl_ops[i] && m->impl_ops[i + 1]; i += 2)
        if (strcmp(m->impl_ops[i], row_op) == 0)
            for (int d = 0; op->dirs[d]; d++)
                if (strcmp(op->dirs[d], m->impl_ops[i + 1]) == 0)
                    return d;
    return -1;
}

int dnb_memop_impl(const dnb_memop_t *m, const dnb_op_t *op, const char *name, dnb_opts_t *o,
                   char *err, size_t err_size)
{
    static const char *const backend_names[] = {"ref", "cpu", "cuda"};
    const int count = (int)(sizeof op_rows / sizeof op_rows[0]);
    if (strcmp(name, "list") == 0) {
        printf("%-48s %-7s direction\n", "implementation (src/impls.def)", "backend");
        for (int i = 0; i < count; i++) {
            int d = row_dir(m, op, op_rows[i].op);
            if (d >= 0)
                printf("%-48s %-7s %s\n", op_rows[i].name,
                       backend_names[row_backend(op_rows[i].backend)], op->dirs[d]);
        }
        return 1;
    }
    for (int i = 0; i < count; i++) {
        if (strcmp(op_rows[i].name, name) != 0)
            continue;
        int d = row_dir(m, op, op_rows[i].op), backend = row_backend(op_rows[i].backend);
        if (d < 0) {
            snprintf(err, err_size, "%s is not an implementation of --op=%s", name, op->name);
            return -1;
        }
        if (o->backend_given && o->backend != backend) {
            snprintf(err, err_size, "%s is a %s implementation but --backend=%s was given", name,
                     backend_names[backend], backend_names[o->backend]);
            return -1;
        }
        if (o->dir != NULL && strcmp(o->dir, op->dirs[d]) != 0) {
            snprintf(err, err_size, "%s computes %s but --dir=%s was given", name, op->dirs[d],
                     o->dir);
            return -1;
        }
        o->backend = backend, o->backend_given = 1;
        o->dir = op->dirs[d];
        return 0;
    }
    snprintf(err, err_size, "no implementation '%s' in src/impls.def (--impl=list lists them)",
             name);
    return -1;
}
