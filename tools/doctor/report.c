/* SPDX-License-Identifier: MIT */
/*
 * report.c - the pieces a check is written into: growing strings, status/detail/notes/fix
 * setters, JSON facts. JSON is written by hand; every string goes through dr_buf_json_str,
 * which escapes quotes, backslashes and control characters and replaces bytes that are not
 * valid UTF-8 (a path can hold anything) with U+FFFD, so the output always parses.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doctor.h"

static const char *const status_names[] = {"PASS", "N/A", "WARN", "FAIL"};
_Static_assert(sizeof status_names / sizeof status_names[0] == DR_STATUS_COUNT,
               "one name per status");

const char *dr_status_name(dr_status_t s)
{
    return (int)s >= 0 && s < DR_STATUS_COUNT ? status_names[s] : "?";
}

static void buf_reserve(dr_buf_t *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (s == NULL) {
        fprintf(stderr, "freednn-doctor: out of memory\n");
        exit(1);
    }
    b->s = s;
    b->cap = cap;
}

static void buf_vprintf(dr_buf_t *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    buf_reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void dr_buf_printf(dr_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void dr_buf_free(dr_buf_t *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, min = 0x10000;
    else
        return 0;
    unsigned cp = c & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void dr_buf_json_str(dr_buf_t *b, const char *s)
{
    if (s == NULL) {
        dr_buf_printf(b, "null");
        return;
    }
    dr_buf_printf(b, "\"");
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            dr_buf_printf(b, "\\%c", (char)c);
            p++;
        } else if (c == '\n') {
            dr_buf_printf(b, "\\n"), p++;
        } else if (c == '\t') {
            dr_buf_printf(b, "\\t"), p++;
        } else if (c == '\r') {
            dr_buf_printf(b, "\\r"), p++;
        } else if (c < 0x20 || c == 0x7f) {
            dr_buf_printf(b, "\\u%04x", c), p++;
        } else {
            size_t n = utf8_len(p);
            if (n == 0) {
                dr_buf_printf(b, "\\ufffd");
                p++;
            } else {
                buf_reserve(b, n);
                memcpy(b->s + b->len, p, n);
                b->len += n;
                b->s[b->len] = '\0';
                p += n;
            }
        }
    }
    dr_buf_printf(b, "\"");
}

void dr_set(dr_check_t *c, dr_status_t s, const char *fmt, ...)
{
    dr_buf_t b = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    free(c->detail);
    c->detail = b.s;
    c->status = s;
}

void dr_note(dr_check_t *c, const char *fmt, ...)
{
    if (c->notes.len)
        dr_buf_printf(&c->notes, "\n");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&c->notes, fmt, ap);
    va_end(ap);
}

void dr_fix(dr_check_t *c, const char *fmt, ...)
{
    if (c->fix.len)
        dr_buf_printf(&c->fix, "\n");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&c->fix, fmt, ap);
    va_end(ap);
}

void dr_fact_raw(dr_check_t *c, const char *key, const char *json)
{
    if (c->facts.len)
        dr_buf_printf(&c->facts, ",");
    dr_buf_json_str(&c->facts, key);
    dr_buf_printf(&c->facts, ":%s", json);
}

void dr_fact_str(dr_check_t *c, const char *key, const char *value)
{
    dr_buf_t v = {0};
    dr_buf_json_str(&v, value);
    dr_fact_raw(c, key, v.s);
    dr_buf_free(&v);
}

void dr_fact_num(dr_check_t *c, const char *key, double value)
{
    char v[64];
    if (isfinite(value))
        snprintf(v, sizeof v, "%.6g", value);
    else
        snprintf(v, sizeof v, "null"); /* JSON has no NaN or infinity */
    dr_fact_raw(c, key, v);
}

void dr_fact_int(dr_check_t *c, const char *key, long long value)
{
    char v[32];
    snprintf(v, sizeof v, "%lld", value);
    dr_fact_raw(c, key, v);
}

const char *dr_cuda_version_str(int v, char *buf, size_t size)
{
    snprintf(buf, size, "%d.%d", v / 1000, (v % 1000) / 10);
    return buf;
}

double dr_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
