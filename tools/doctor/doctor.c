/* SPDX-License-Identifier: MIT */
/*
 * doctor.c - freednn-doctor (DESIGN D8): the checks the cuDNN install guides have people do by
 * hand (GPU and compute capability, driver and runtime versions and their compatibility, which
 * libcudnn the loader resolves, the backend a handle gets, bandwidth, a smoke convolution,
 * the library's identity), run in one go and printed as an aligned report or one JSON object.
 *
 * Exit status: 0 when no check FAILed (N/A and WARN are fine), 1 when one did, 2 for a usage
 * error. docs/doctor.md is the manual.
 */
#define _GNU_SOURCE /* dladdr, dlinfo, RTLD_NEXT, memmem, strndup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"
#include "freednn.h"

typedef struct {
    const char *name, *title;
    void (*run)(dr_ctx_t *, dr_check_t *);
} check_def_t;

/* Report order; later checks read what earlier ones found (dr_ctx_t). */
static const check_def_t checks[] = {
    {"gpu", "NVIDIA driver (libcuda.so.1), GPUs, compute capability (sm_80+), memory",
     dr_check_gpu},
    {"cuda_runtime", "CUDA runtime (libcudart), its version against the driver's",
     dr_check_cuda_runtime},
    {"libcudnn", "which libcudnn.so.9/.8/.7/.so the loader resolves, from where, whose, shadowing",
     dr_check_libcudnn},
    {"backend", "the backend cudnnCreate gives and why; which of ref/cpu/cuda can run",
     dr_check_backend},
    {"bandwidth", "device memory bandwidth (GPU), or host memcpy bandwidth without a GPU",
     dr_check_bandwidth},
    {"cpu_blas", "the OpenBLAS the cpu backend's GEMM rows run on, and its kernels for this CPU",
     dr_check_cpu_blas},
    {"smoke_conv",
     "small conv fwd/bwd-data/bwd-filter on every backend, integer data compared with ref",
     dr_check_smoke_conv},
    {"library", "freednn and cuDNN API versions, CUDA runtime version, path of libfreednn",
     dr_check_library},
};
#define NCHECKS (int)(sizeof checks / sizeof checks[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: freednn-doctor [--json] [--no-color] [--help]\n"
               "\n"
               "Checks this machine the way the cuDNN install guides tell people to by hand, and\n"
               "explains each failure with its fix. Each check is PASS, N/A (does not apply here,\n"
               "not a failure), WARN (works, but look) or FAIL.\n"
               "\n"
               "checks:\n");
    for (int i = 0; i < NCHECKS; i++)
        fprintf(f, "  %-13s %s\n", checks[i].name, checks[i].title);
    fprintf(f, "\n"
               "options:\n"
               "  --json       one JSON object: {\"checks\": [{name, status, detail, notes, fix, "
               "facts}],\n"
               "               \"summary\": {...}}\n"
               "  --no-color   plain text even on a terminal (NO_COLOR=1 does the same)\n"
               "  --help       this text\n"
               "\n"
               "environment: FREEDNN_BACKEND (echoed and used by the backend check),\n"
               "LD_LIBRARY_PATH (searched by the libcudnn check), CUDA_VISIBLE_DEVICES.\n"
               "exit status: 0 when no check FAILed, 1 when one did, 2 for a usage error.\n"
               "see docs/doctor.md\n");
}

static const char *color_of(dr_status_t s)
{
    switch (s) {
    case DR_PASS:
        return "\033[32m";
    case DR_NA:
        return "\033[2m";
    case DR_WARN:
        return "\033[33m";
    default:
        return "\033[31;1m";
    }
}

/* Writes n bytes of s with control characters as \xNN: a path may hold an escape sequence. */
static void put_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f)
            printf("\\x%02x", ch);
        else
            putchar(ch);
    }
}

/* Prints '\n'-separated `text`, each line indented, the first one after `label`. */
static void print_lines(const char *text, const char *indent, const char *label)
{
    const char *p = text;
    int first = 1;
    while (p != NULL && *p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        printf("%s%s", indent, first ? label : (label[0] ? "     " : ""));
        put_text(p, n);
        putchar('\n');
        first = 0;
        p = nl ? nl + 1 : NULL;
    }
}

static void print_human(const dr_check_t *res, const int count[DR_STATUS_COUNT], int color)
{
    printf("freednn-doctor: the checks the cuDNN install guides do by hand\n\n");
    const char *indent = "                      "; /* under the detail column */
    for (int i = 0; i < NCHECKS; i++) {
        const dr_check_t *c = &res[i];
        char st[8];
        snprintf(st, sizeof st, "%-4s", dr_status_name(c->status));
        printf("  %s%s%s  %-12s  ", color ? color_of(c->status) : "", st, color ? "\033[0m" : "",
               c->name);
        put_text(c->detail ? c->detail : "", c->detail ? strlen(c->detail) : 0);
        putchar('\n');
        print_lines(c->notes.s, indent, "");
        print_lines(c->fix.s, indent, "fix: ");
    }
    int fail = count[DR_FAIL];
    printf("\nsummary: %d passed, %d n/a, %d warning%s, %d failed%s (exit %d)\n", count[DR_PASS],
           count[DR_NA], count[DR_WARN], count[DR_WARN] == 1 ? "" : "s", fail,
           fail ? ": see the fix lines above" : "", fail ? 1 : 0);
}

static void print_json(const dr_check_t *res, const int count[DR_STATUS_COUNT])
{
    dr_buf_t b = {0};
    size_t v = freednnGetVersion();
    dr_buf_printf(&b,
                  "{\"tool\":\"freednn-doctor\",\"freednn_version\":\"%zu.%zu.%zu\",\"checks\":[",
                  v / 10000, v / 100 % 100, v % 100);
    for (int i = 0; i < NCHECKS; i++) {
        const dr_check_t *c = &res[i];
        dr_buf_printf(&b, "%s\n{\"name\":", i ? "," : "");
        dr_buf_json_str(&b, c->name);
        dr_buf_printf(&b, ",\"title\":");
        dr_buf_json_str(&b, c->title);
        dr_buf_printf(&b, ",\"status\":");
        dr_buf_json_str(&b, dr_status_name(c->status));
        dr_buf_printf(&b, ",\"detail\":");
        dr_buf_json_str(&b, c->detail ? c->detail : "");
        dr_buf_printf(&b, ",\"notes\":[");
        for (const char *p = c->notes.s; p != NULL && *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            char *line = strndup(p, n);
            dr_buf_printf(&b, "%s", p != c->notes.s ? "," : "");
            dr_buf_json_str(&b, line);
            free(line);
            p = nl ? nl + 1 : NULL;
        }
        dr_buf_printf(&b, "],\"fix\":");
        dr_buf_json_str(&b, c->fix.len ? c->fix.s : NULL);
        dr_buf_printf(&b, ",\"facts\":{%s}}", c->facts.len ? c->facts.s : "");
    }
    int fail = count[DR_FAIL];
    dr_buf_printf(&b,
                  "\n],\"summary\":{\"pass\":%d,\"na\":%d,\"warn\":%d,\"fail\":%d,\"ok\":%s,"
                  "\"exit_code\":%d}}\n",
                  count[DR_PASS], count[DR_NA], count[DR_WARN], fail, fail ? "false" : "true",
                  fail ? 1 : 0);
    fwrite(b.s, 1, b.len, stdout);
    dr_buf_free(&b);
}

int main(int argc, char **argv)
{
    int json = 0, color = isatty(STDOUT_FILENO);
    const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
    if ((no_color != NULL && *no_color) || (term != NULL && strcmp(term, "dumb") == 0))
        color = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--no-color") == 0) {
            color = 0;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "freednn-doctor: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    static dr_ctx_t ctx;
    dr_check_t res[NCHECKS];
    int count[DR_STATUS_COUNT] = {0};
    memset(res, 0, sizeof res);
    for (int i = 0; i < NCHECKS; i++) {
        res[i].name = checks[i].name;
        res[i].title = checks[i].title;
        res[i].status = DR_FAIL; /* a check that forgets to conclude is not a pass */
        checks[i].run(&ctx, &res[i]);
        if (res[i].detail == NULL)
            dr_set(&res[i], DR_FAIL, "the check ended without a result (a freednn-doctor bug)");
        count[res[i].status]++;
    }
    if (json)
        print_json(res, count);
    else
        print_human(res, count, color);
    fflush(stdout);
    for (int i = 0; i < NCHECKS; i++) {
        free(res[i].detail);
        dr_buf_free(&res[i].notes);
        dr_buf_free(&res[i].fix);
        dr_buf_free(&res[i].facts);
    }
    return count[DR_FAIL] ? 1 : 0;
}
