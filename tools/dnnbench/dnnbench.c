/* SPDX-License-Identifier: MIT */
/*
 * dnnbench.c - the benchdnn-style driver (DESIGN D8): options, the op table, problem sources
 * (shape files and inline problems), one row per (problem, direction) printed as an aligned
 * table and CSV, the summary and the per-(op, direction, dtype) geometric mean against --vs.
 *
 * Exit status: 0 when nothing FAILED, 1 when something did (or setup failed), 2 for a usage
 * error. docs/dnnbench.md is the manual.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dnnbench.h"

extern char **environ;

/* ---- the op table: one line per tools/dnnbench/op_<name>.c ---------------------------------- */

static const dnb_op_t *const ops[] = {&dnb_op_conv, &dnb_op_pool, &dnb_op_act,   &dnb_op_softmax,
                                      &dnb_op_lrn,  &dnb_op_bn,   &dnb_op_tensor};
/* Ops of the command line that have no file yet: named so the message can say so. */
static const char *const planned_ops[] = {"dropout", "rnn"};

static const dnb_dt_t dts[] = {
    {"f32", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 0.0, CUDNN_FMA_MATH},
    {"tf32", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 0x1p-11, CUDNN_TENSOR_OP_MATH},
    {"f16", CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, 0.0, CUDNN_TENSOR_OP_MATH},
    {"bf16", CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, 0.0, CUDNN_TENSOR_OP_MATH},
    {"f64", CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, 0.0, CUDNN_DEFAULT_MATH},
    {"int8", CUDNN_DATA_INT8, CUDNN_DATA_INT32, 0.0, CUDNN_DEFAULT_MATH},
};

const dnb_dt_t *dnb_dt_find(const char *name)
{
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++)
        if (strcmp(dts[i].name, name) == 0)
            return &dts[i];
    return NULL;
}

static const char *const state_names[] = {"PASSED", "FAILED", "SKIPPED", "MISTRUSTED", "EXECUTED"};
_Static_assert(sizeof state_names / sizeof state_names[0] == DNB_STATE_COUNT, "one name per state");

const char *dnb_state_name(dnb_state_t s)
{
    return (int)s >= 0 && s < DNB_STATE_COUNT ? state_names[s] : "?";
}

static const char *const backend_names[] = {"ref", "cpu", "cuda"};

static const char *backend_name(int b)
{
    return b >= 0 && b < 3 ? backend_names[b] : "gpu";
}

/* ---- usage ---------------------------------------------------------------------------------- */

static const char usage_text[] =
    "usage: dnnbench [--op=conv|pool|act|softmax|lrn|bn|tensor|...] "
    "[--dir=fwd|bwd|bwd_data|bwd_filter|all]\n"
    "                [--dt=f32|tf32|f16|bf16|f64|int8] [--layout=nchw|nhwc] "
    "[--algo=N|heur|find|--impl=NAME]\n"
    "                [--backend=ref|cpu|cuda] [--mode=corr|perf|both] [--n=BATCH] [--iters=N] "
    "[--vs=LIB]\n"
    "                [--csv=FILE] [--plot=FILE] (--batch=FILE | PROBLEM...)\n"
    "more: --warmup=N --max-ms=MS --cache=cold|hot --cold-bytes=B --fill=int|real "
    "--ref-max-gflop=G\n"
    "      --vs-check-max-gflop=G (--mode=perf with --vs: check agreement up to G GFLOP per "
    "call, default 20)\n"
    "      --ref=auto|host|gpu (conv on cuda: the naive GPU kernels check what ref is too slow "
    "for)\n"
    "      --graph[=CALLS] (cuda: also time a captured CUDA graph of CALLS calls, default 20)\n"
    "      --host-burst[=CALLS] (cuda: host_ms per call over bursts of CALLS back-to-back calls, "
    "default 50)\n"
    "      --verbose --inject-error[=ours|vs|input] (test hook); conv: "
    "--math=default|tensor_op|tensor_op_allow_conversion|fma\n"
    "      --conv-mode=xcorr|conv; --impl=list lists the implementations of src/impls.def\n"
    "PROBLEM (conv): \"N C H W K R S pad stride dilation groups [pad_h=.. pad_w=.. stride_h=.. "
    "...]\"\n"
    "                or n2c16h28w28k32r3s3p1u1l1g1 (p/q pad h/w, u/v stride h/w, l/j dilation "
    "h/w)\n"
    "PROBLEM (others): n2c16h28w28 and key=value fields, one quoted argument (or comma-joined):\n"
    "      pool    'n2c16h28w28k3s2p1 mode=max|avg_incl|avg_excl|max_det [kw= sw= pw=]'\n"
    "      act     'n2c16h28w28 mode=relu|sigmoid|tanh|clipped_relu|elu|swish [coef=] [beta=]'\n"
    "      softmax 'n2c16h28w28 algo=accurate|log|fast mode=channel|instance'\n"
    "      lrn     'n2c16h28w28 size=5 alpha=1e-4 beta=0.75 k=2'\n"
    "      bn      'n2c16h28w28 mode=spatial|per_activation|spatial_persistent [eps=] [factor=]'\n"
    "      tensor  'n2c16h28w28 op=add_tensor|add|mul|min|max|transform|reduce [bcast=c|none]\n"
    "              [rop=add|mul|min|max|amax|avg|norm1|norm2|mul_no_zeros] [keep=c|nhw]'\n"
    "      directions fwd, bwd (bn: fwd_infer, fwd_train, bwd; tensor: fwd); bwd_data means bwd\n"
    "see docs/dnnbench.md\n";

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "dnnbench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    exit(2);
}

/* ---- option parsing ---------------------------------------------------------------------------
 */

static void appendf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Whether --dir=want selects direction d of op: NULL the first, "all" every one, a name itself;
 * aliases: "fwd" / "bwd" every direction named fwd_* / bwd_* (bn's fwd_infer and fwd_train,
 * conv's bwd_data and bwd_filter), and "bwd_data" an op's "bwd" (the ops that have no filter:
 * their backward computes dx, and bn's its parameter gradients with it). */
static int dir_selected(const dnb_op_t *op, const char *want, int d)
{
    const char *name = op->dirs[d];
    if (want == NULL)
        return d == 0;
    if (strcmp(want, "all") == 0 || strcmp(want, name) == 0)
        return 1;
    if ((strcmp(want, "fwd") == 0 || strcmp(want, "bwd") == 0) && starts_with(name, want) &&
        name[3] == '_')
        return 1;
    return strcmp(want, "bwd_data") == 0 && strcmp(name, "bwd") == 0;
}

static const char *value_of(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

static int64_t parse_int(const char *v, const char *arg, int64_t lo, int64_t hi)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi)
        usage_error("bad value in %s", arg);
    return x;
}

static double parse_double(const char *v, const char *arg)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x >= 0))
        usage_error("bad value in %s", arg);
    return x;
}

typedef struct problem_list {
    dnb_problem_t *p;
    int count, cap;
} problem_list_t;

static dnb_problem_t *problem_add(problem_list_t *l)
{
    if (l->count == l->cap) {
        int cap = l->cap ? 2 * l->cap : 32;
        dnb_problem_t *p = realloc(l->p, sizeof *p * (size_t)cap);
        if (p == NULL) {
            fprintf(stderr, "dnnbench: out of memory\n");
            exit(1);
        }
        l->p = p, l->cap = cap;
    }
    dnb_problem_t *p = &l->p[l->count++];
    memset(p, 0, sizeof *p);
    return p;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* A shape file: as given, else under bench/shapes/ (with or without .txt). */
static FILE *open_batch(const char *path, char *found, size_t size)
{
    const char *tries[3] = {"%s", DNB_SHAPES_DIR "/%s", DNB_SHAPES_DIR "/%s.txt"};
    for (int i = 0; i < 3; i++) {
        if (i > 0 && strchr(path, '/') != NULL)
            break;
        snprintf(found, size, tries[i], path);
        FILE *f = fopen(found, "r");
        if (f != NULL)
            return f;
    }
    return NULL;
}

static void read_batch(const dnb_op_t *op, const char *path, problem_list_t *l)
{
    char found[1024], line[1024], err[256];
    FILE *f = open_batch(path, found, sizeof found);
    if (f == NULL)
        usage_error("cannot open the shape file %s (looked as given and in " DNB_SHAPES_DIR ")",
                    path);
    for (int ln = 1; fgets(line, sizeof line, f); ln++) {
        char *hash = strchr(line, '#'), *tag = "";
        if (hash) {
            *hash = '\0';
            tag = trim(hash + 1);
        }
        char *text = trim(line);
        if (*text == '\0')
            continue;
        dnb_problem_t *p = problem_add(l);
        if (op->parse(text, p, err, sizeof err)) {
            fprintf(stderr, "dnnbench: %s:%d: %s\n", found, ln, err);
            exit(2);
        }
        snprintf(p->tag, sizeof p->tag, "%s", tag);
        snprintf(p->source, sizeof p->source, "%s:%d", path, ln);
    }
    fclose(f);
}

/* ---- output ------------------------------------------------------------------------------------
 */

static void csv_field(FILE *f, const char *s, int last)
{
    if (strpbrk(s, ",\"\n") != NULL) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s == '\n' ? ' ' : *s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

static const char csv_header[] =
    "index,op,dir,dt,layout,backend,problem,tag,gflop,status,reason,algo,workspace,err_ratio,max_"
    "err,"
    "zero_frac,samples,ms_median,ms_min,gflops,vs_lib,vs_status,vs_reason,vs_algo,vs_err_ratio,"
    "vs_samples,vs_ms_median,vs_ms_min,vs_gflops,ratio,gbytes,gbps,vs_gbps,host_ms,vs_host_ms,"
    "reference,graph_calls,graph_ms,vs_graph_ms,graph_note,vs_graph_note,repro\n";

static void fmt_num(char *buf, size_t n, const char *fmt, double v, int known)
{
    if (known)
        snprintf(buf, n, fmt, v);
    else
        snprintf(buf, n, "%s", "");
}

static double gflops_of(const dnb_row_t *r, const dnb_timing_t *t)
{
    return t->samples ? r->flop / (t->med_ms * 1e-3) * 1e-9 : 0.0;
}

static double gbps_of(const dnb_row_t *r, const dnb_timing_t *t)
{
    return t->samples ? r->bytes / (t->med_ms * 1e-3) * 1e-9 : 0.0;
}

/* The rate of the table: GB/s of compulsory traffic for memory-bound ops, else GFLOP/s. */
static double rate_of(const dnb_row_t *r, const dnb_timing_t *t)
{
    return r->bytes > 0 ? gbps_of(r, t) : gflops_of(r, t);
}

static void csv_row(FILE *f, const dnb_opts_t *o, const char *backend, const dnb_row_t *r)
{
    char b[40][64];
    const dnb_side_result_t *u = &r->ours, *t = &r->theirs;
    int k = 0;
    snprintf(b[k++], 64, "%d", r->index);
    csv_field(f, b[0], 0);
    csv_field(f, r->op, 0);
    csv_field(f, r->dir, 0);
    csv_field(f, o->dt->name, 0);
    csv_field(f, o->nhwc ? "nhwc" : "nchw", 0);
    csv_field(f, backend, 0);
    csv_field(f, r->problem, 0);
    csv_field(f, r->tag, 0);
    fmt_num(b[k], 64, "%.6g", r->flop * 1e-9, 1);
    csv_field(f, b[k++], 0);
    csv_field(f, dnb_state_name(u->state), 0);
    csv_field(f, u->reason, 0);
    fmt_num(b[k], 64, "%.0f", u->algo, u->algo >= 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.0f", (double)u->workspace, u->algo >= 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.4g", u->err_ratio, u->err_ratio >= 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", u->max_err, u->err_ratio >= 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.4f", r->zero_frac, r->zero_frac >= 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.0f", u->t.samples, u->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", u->t.med_ms, u->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", u->t.min_ms, u->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", gflops_of(r, &u->t), u->t.samples > 0);
    csv_field(f, b[k++], 0);
    csv_field(f, r->has_vs ? o->vs : "", 0);
    csv_field(f, r->has_vs && t->ran ? dnb_state_name(t->state) : "", 0);
    csv_field(f, r->has_vs ? t->reason : "", 0);
    fmt_num(b[k], 64, "%.0f", t->algo, r->has_vs && t->algo >= 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.4g", t->err_ratio, r->has_vs && t->err_ratio >= 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.0f", t->t.samples, t->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", t->t.med_ms, t->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", t->t.min_ms, t->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", gflops_of(r, &t->t), t->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.4f", u->t.samples && t->t.samples ? t->t.med_ms / u->t.med_ms : 0,
            u->t.samples > 0 && t->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", r->bytes * 1e-9, r->bytes > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", gbps_of(r, &u->t), r->bytes > 0 && u->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", gbps_of(r, &t->t), r->bytes > 0 && t->t.samples > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", u->t.host_med_ms, u->t.samples > 0 && u->t.host_med_ms >= 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", t->t.host_med_ms, t->t.samples > 0 && t->t.host_med_ms >= 0);
    csv_field(f, b[k++], 0);
    csv_field(f, r->reference, 0);
    fmt_num(b[k], 64, "%.0f", u->t.graph_calls, u->t.graph_calls > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", u->t.graph_ms, u->t.graph_calls > 0);
    csv_field(f, b[k++], 0);
    fmt_num(b[k], 64, "%.6g", t->t.graph_ms, r->has_vs && t->t.graph_calls > 0);
    csv_field(f, b[k++], 0);
    csv_field(f, u->t.graph_note, 0);
    csv_field(f, r->has_vs ? t->t.graph_note : "", 0);
    csv_field(f, r->repro, 1);
    fflush(f);
}

static int prob_width = 12;
static int show_host, show_graph; /* the host_ms and graph_ms columns: cuda timing, --graph */

static void table_header(const dnb_opts_t *o)
{
    const int mem = o->op->bytes != NULL; /* memory-bound: MB moved and GB/s */
    printf("%4s %-10s %-10s %-4s %-*s %4s %8s %10s %10s %9s %7s %-9s", "#", "status", "dir", "dt",
           prob_width, "problem", "algo", mem ? "MB" : "GFLOP", "ms(med)", "ms(min)",
           mem ? "GB/s" : "GFLOP/s", "err/tol", "ref");
    if (show_host)
        printf(" %9s", "host_ms");
    if (show_graph)
        printf(" %9s", "graph_ms");
    if (o->vs) {
        printf("  | %-10s %4s %10s %9s %7s", "vs", "algo", "vs_ms", mem ? "vs_GB/s" : "vs_GF/s",
               "ratio");
        if (show_host)
            printf(" %9s", "vs_host");
        if (show_graph)
            printf(" %9s", "vs_graph");
    }
    printf("  repro\n");
}

/* The host time and graph time cells of one side. */
static void print_cell_extra(const dnb_timing_t *t)
{
    if (show_host) {
        if (t->samples && t->host_med_ms >= 0)
            printf(" %9.4f", t->host_med_ms);
        else
            printf(" %9s", "-");
    }
    if (show_graph) {
        if (t->graph_calls > 0)
            printf(" %9.4f", t->graph_ms);
        else
            printf(" %9s", "-");
    }
}

static void print_cell_time(const dnb_timing_t *t, const dnb_row_t *r, int with_min)
{
    if (t->samples) {
        printf(" %10.4f", t->med_ms);
        if (with_min)
            printf(" %10.4f", t->min_ms);
        printf(" %9.2f", rate_of(r, t));
    } else {
        printf(" %10s", "-");
        if (with_min)
            printf(" %10s", "-");
        printf(" %9s", "-");
    }
}

static void table_row(const dnb_opts_t *o, const dnb_row_t *r)
{
    const dnb_side_result_t *u = &r->ours, *t = &r->theirs;
    char algo[16], err[16];
    snprintf(algo, sizeof algo, u->algo >= 0 ? "%d" : "-", u->algo);
    if (u->err_ratio >= 0)
        snprintf(err, sizeof err, "%.2g", u->err_ratio);
    else
        snprintf(err, sizeof err, "-");
    printf("%4d %-10s %-10s %-4s %-*s %4s %8.4f", r->index, dnb_state_name(u->state), r->dir,
           o->dt->name, prob_width, r->problem, algo,
           r->bytes > 0 ? r->bytes * 1e-6 : r->flop * 1e-9);
    print_cell_time(&u->t, r, 1);
    printf(" %7s %-9s", err, r->reference[0] ? r->reference : "-");
    print_cell_extra(&u->t);
    if (o->vs) {
        char valgo[16];
        snprintf(valgo, sizeof valgo, t->algo >= 0 ? "%d" : "-", t->algo);
        printf("  | %-10s %4s", t->ran ? dnb_state_name(t->state) : "-", valgo);
        print_cell_time(&t->t, r, 0);
        if (u->t.samples && t->t.samples)
            printf(" %7.3f", t->t.med_ms / u->t.med_ms);
        else
            printf(" %7s", "-");
        print_cell_extra(&t->t);
    }
    printf("  %s\n", r->repro);
    if (u->reason[0])
        printf("%4s %s: %s\n", "", "freednn", u->reason);
    if (u->t.graph_note[0])
        printf("%4s %s: %s\n", "", "freednn", u->t.graph_note);
    if (o->vs && t->reason[0])
        printf("%4s %s: %s\n", "", "vs", t->reason);
    if (o->vs && t->t.graph_note[0])
        printf("%4s %s: %s\n", "", "vs", t->t.graph_note);
    fflush(stdout);
}

/* ---- geometric means per (op, direction, dtype) -----------------------------------------------
 */

typedef struct geo {
    char key[64];
    double log_sum;
    int n;
} geo_t;

static void geo_add(geo_t *g, int *count, int cap, const char *key, double ratio)
{
    int i = 0;
    while (i < *count && strcmp(g[i].key, key) != 0)
        i++;
    if (i == *count) {
        if (*count == cap)
            return;
        snprintf(g[i].key, sizeof g[i].key, "%s", key);
        g[i].log_sum = 0, g[i].n = 0;
        (*count)++;
    }
    g[i].log_sum += log(ratio);
    g[i].n++;
}

/* ---- plots -------------------------------------------------------------------------------------
 */

static const char *plot_script(void)
{
    return access(DNB_PLOT_SCRIPT, R_OK) == 0 ? DNB_PLOT_SCRIPT : "tools/dnnbench/plot.py";
}

/* Runs /usr/bin/python3 plot.py args...; its exit status, or -1 when it cannot start. */
static int run_python(char *const *args)
{
    if (access("/usr/bin/python3", X_OK) != 0) {
        fprintf(stderr,
                "dnnbench: --plot needs /usr/bin/python3 with matplotlib: install the Debian "
                "packages python3 and python3-matplotlib (apt-get install python3-matplotlib)\n");
        return -1;
    }
    pid_t pid;
    if (posix_spawn(&pid, "/usr/bin/python3", NULL, NULL, args, environ) != 0) {
        fprintf(stderr, "dnnbench: cannot start /usr/bin/python3: %s\n", strerror(errno));
        return -1;
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- repro lines ------------------------------------------------------------------------ */

/* The command that re-runs one line: every option that changes what is run or checked. */
static void repro_line(const dnb_opts_t *o, const char *backend, const char *dir,
                       const char *problem, char *buf, size_t size)
{
    snprintf(buf, size, "dnnbench --op=%s --dir=%s --dt=%s --layout=%s --backend=%s", o->op->name,
             dir, o->dt->name, o->nhwc ? "nhwc" : "nchw", backend);
    if (o->impl)
        appendf(buf, size, " --impl=%s", o->impl);
    else if (o->algo >= 0)
        appendf(buf, size, " --algo=%d", o->algo);
    else if (o->algo == DNB_ALGO_FIND)
        appendf(buf, size, " --algo=find");
    if (o->mode != DNB_MODE_CORR)
        appendf(buf, size, " --mode=%s", o->mode == DNB_MODE_PERF ? "perf" : "both");
    appendf(buf, size, "%s", o->op_opts);
    if (o->fill_real)
        appendf(buf, size, " --fill=real");
    if (o->inject_error)
        appendf(buf, size, " --inject-error%s",
                o->inject_error == 2   ? "=vs"
                : o->inject_error == 3 ? "=input"
                                       : "");
    if (o->vs)
        appendf(buf, size, " --vs=%s", o->vs);
    if (o->iters_given)
        appendf(buf, size, " --iters=%d", o->iters);
    if (o->ref_max_gflop != 1.0)
        appendf(buf, size, " --ref-max-gflop=%g", o->ref_max_gflop);
    if (o->vs_check_max_gflop != 20.0)
        appendf(buf, size, " --vs-check-max-gflop=%g", o->vs_check_max_gflop);
    if (o->ref_kind != DNB_REF_AUTO)
        appendf(buf, size, " --ref=%s", o->ref_kind == DNB_REF_HOST ? "host" : "gpu");
    if (o->graph)
        appendf(buf, size, " --graph=%d", o->graph);
    if (o->host_burst)
        appendf(buf, size, " --host-burst=%d", o->host_burst);
    /* problems with fields ("n2c16h28w28k3s2p1 mode=max") are one quoted shell word */
    appendf(buf, size, strchr(problem, ' ') ? " '%s'" : " %s", problem);
}

/* ---- main ---------------------------------------------------------------------------------------
 */

int main(int argc, char **argv)
{
    dnb_opts_t o = {0};
    o.dt = dnb_dt_find("f32");
    o.algo = DNB_ALGO_HEUR;
    o.backend = -1;
    o.mode = DNB_MODE_CORR;
    o.iters = 10;
    o.warmup = 1;
    o.max_ms = 3000;
    o.cold_bytes = (size_t)256 << 20;
    o.ref_max_gflop = 1.0;
    o.vs_check_max_gflop = 20.0;

    /* the op first: its options are parsed with the rest */
    o.op = ops[0];
    for (int i = 1; i < argc; i++) {
        const char *v = value_of(argv[i], "--op");
        if (v == NULL)
            continue;
        o.op = NULL;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            if (strcmp(ops[k]->name, v) == 0)
                o.op = ops[k];
        if (o.op == NULL) {
            for (size_t k = 0; k < sizeof planned_ops / sizeof planned_ops[0]; k++)
                if (strcmp(planned_ops[k], v) == 0)
                    usage_error(
                        "--op=%s: this op has no dnnbench file yet (tools/dnnbench/op_<op>.c); "
                        "available: conv, pool, act, softmax, lrn, bn, tensor",
                        v);
            usage_error("unknown op in %s", argv[i]);
        }
    }

    problem_list_t probs = {0};
    const char *batches[64];
    int nbatch = 0;
    const char *impl = NULL;
    char err[512];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strncmp(a, "--", 2) != 0) {
            dnb_problem_t *p = problem_add(&probs);
            if (o.op->parse(a, p, err, sizeof err))
                usage_error("bad problem: %s", err);
            snprintf(p->source, sizeof p->source, "argv");
            continue;
        }
        if ((v = value_of(a, "--op"))) {
            continue;
        } else if ((v = value_of(a, "--dir"))) {
            int matches = 0, last = 0;
            for (int k = 0; o.op->dirs[k]; k++)
                if (dir_selected(o.op, v, k))
                    matches++, last = k;
            if (matches == 0) {
                char dirs[128] = "";
                for (int k = 0; o.op->dirs[k]; k++)
                    appendf(dirs, sizeof dirs, "%s%s", k ? ", " : "", o.op->dirs[k]);
                fprintf(stderr, "dnnbench: --op=%s has the directions %s (and all)\n", o.op->name,
                        dirs);
                usage_error("unknown direction in %s", a);
            }
            /* one direction named by an alias (bwd_data for bwd): its own name from here on */
            o.dir = matches == 1 && strcmp(v, "all") != 0 ? o.op->dirs[last] : v;
        } else if ((v = value_of(a, "--dt"))) {
            if ((o.dt = dnb_dt_find(v)) == NULL)
                usage_error("unknown data type in %s (f32, tf32, f16, bf16, f64, int8)", a);
        } else if ((v = value_of(a, "--layout"))) {
            if (strcmp(v, "nchw") && strcmp(v, "nhwc"))
                usage_error("unknown layout in %s (nchw, nhwc)", a);
            o.nhwc = strcmp(v, "nhwc") == 0;
        } else if ((v = value_of(a, "--algo"))) {
            o.algo = strcmp(v, "heur") == 0   ? DNB_ALGO_HEUR
                     : strcmp(v, "find") == 0 ? DNB_ALGO_FIND
                                              : (int)parse_int(v, a, 0, 31);
        } else if ((v = value_of(a, "--impl"))) {
            impl = v;
        } else if ((v = value_of(a, "--backend"))) {
            o.backend = -1;
            for (int k = 0; k < 3; k++)
                if (strcmp(v, backend_names[k]) == 0)
                    o.backend = k;
            if (o.backend < 0)
                usage_error("unknown backend in %s (ref, cpu, cuda)", a);
            o.backend_given = 1;
        } else if ((v = value_of(a, "--mode"))) {
            o.mode = strcmp(v, "corr") == 0   ? DNB_MODE_CORR
                     : strcmp(v, "perf") == 0 ? DNB_MODE_PERF
                     : strcmp(v, "both") == 0 ? DNB_MODE_BOTH
                                              : 0;
            if (o.mode == 0)
                usage_error("unknown mode in %s (corr, perf, both)", a);
        } else if ((v = value_of(a, "--n"))) {
            o.n = parse_int(v, a, 1, INT32_MAX);
        } else if ((v = value_of(a, "--iters"))) {
            o.iters = (int)parse_int(v, a, 1, 1000);
            o.iters_given = 1;
        } else if ((v = value_of(a, "--warmup"))) {
            o.warmup = (int)parse_int(v, a, 0, 1000);
        } else if ((v = value_of(a, "--max-ms"))) {
            o.max_ms = parse_double(v, a);
        } else if ((v = value_of(a, "--cache"))) {
            if (strcmp(v, "cold") && strcmp(v, "hot"))
                usage_error("unknown cache mode in %s (cold, hot)", a);
            o.cache_hot = strcmp(v, "hot") == 0;
        } else if ((v = value_of(a, "--cold-bytes"))) {
            o.cold_bytes = (size_t)parse_int(v, a, 1, INT64_MAX);
        } else if ((v = value_of(a, "--fill"))) {
            if (strcmp(v, "int") && strcmp(v, "real"))
                usage_error("unknown fill in %s (int, real)", a);
            o.fill_real = strcmp(v, "real") == 0;
        } else if ((v = value_of(a, "--ref-max-gflop"))) {
            o.ref_max_gflop = parse_double(v, a);
        } else if ((v = value_of(a, "--vs-check-max-gflop"))) {
            o.vs_check_max_gflop = parse_double(v, a);
        } else if ((v = value_of(a, "--ref"))) {
            o.ref_kind = strcmp(v, "auto") == 0   ? DNB_REF_AUTO
                         : strcmp(v, "host") == 0 ? DNB_REF_HOST
                         : strcmp(v, "gpu") == 0  ? DNB_REF_GPU
                                                  : -1;
            if (o.ref_kind < 0)
                usage_error("unknown reference in %s (auto, host, gpu)", a);
        } else if (strcmp(a, "--graph") == 0) {
            o.graph = 20;
        } else if ((v = value_of(a, "--graph"))) {
            o.graph = (int)parse_int(v, a, 1, 1000);
        } else if (strcmp(a, "--host-burst") == 0) {
            o.host_burst = 50;
        } else if ((v = value_of(a, "--host-burst"))) {
            o.host_burst = (int)parse_int(v, a, 1, 500);
        } else if ((v = value_of(a, "--vs"))) {
            o.vs = v;
        } else if ((v = value_of(a, "--csv"))) {
            o.csv = v;
        } else if ((v = value_of(a, "--plot"))) {
            o.plot = v;
        } else if ((v = value_of(a, "--batch"))) {
            if (nbatch == (int)(sizeof batches / sizeof batches[0]))
                usage_error("too many --batch files (%s)", a);
            batches[nbatch++] = v;
        } else if (strcmp(a, "--inject-error") == 0 || strcmp(a, "--inject-error=ours") == 0) {
            o.inject_error = 1;
        } else if (strcmp(a, "--inject-error=vs") == 0) {
            o.inject_error = 2;
        } else if (strcmp(a, "--inject-error=input") == 0) {
            o.inject_error = 3;
        } else if (strcmp(a, "--verbose") == 0) {
            o.verbose = 1;
        } else {
            int r = o.op->option(a, err, sizeof err);
            if (r < 0)
                usage_error("%s", err);
            if (r == 0)
                usage_error("unknown option %s", a);
            size_t used = strlen(o.op_opts);
            snprintf(o.op_opts + used, sizeof o.op_opts - used, " %s", a);
        }
    }
    if (impl != NULL) {
        if (o.algo != DNB_ALGO_HEUR)
            usage_error("%s", "--algo and --impl exclude each other");
        int r = o.op->impl(impl, &o, err, sizeof err);
        if (r > 0)
            return 0; /* --impl=list */
        if (r < 0)
            usage_error("--impl: %s", err);
        o.impl = impl;
    }
    for (int i = 0; i < nbatch; i++)
        read_batch(o.op, batches[i], &probs);
    if (probs.count == 0)
        usage_error("%s", "no problems: give --batch=FILE or PROBLEM arguments");
    if (o.plot != NULL) {
        char *check[] = {"/usr/bin/python3", (char *)plot_script(), "--check", NULL};
        if (run_python(check) != 0) {
            fprintf(stderr, "dnnbench: --plot cannot work on this machine (see above)\n");
            return 1;
        }
    }

    /* the libraries */
    dnb_ctx_t ctx = {0};
    ctx.o = &o;
    ctx.lib = dnb_lib_ours();
    char no_gpu[sizeof err + 16] = "";
    if (o.ref_kind == DNB_REF_GPU && o.backend != FREEDNN_BACKEND_CUDA)
        usage_error("%s", "--ref=gpu needs --backend=cuda (the naive GPU kernels are cuda rows)");
    /* --backend=cuda on a machine without a usable GPU (no CUDA runtime, no device): every
     * line SKIPPED with the reason, exit 0, so scripts and tests run anywhere. A GPU that is
     * there but a library that cannot use it is an error (below). */
    if (o.backend == FREEDNN_BACKEND_CUDA && dnb_cuda_device(err, sizeof err) == NULL) {
        snprintf(no_gpu, sizeof no_gpu, "no GPU: %s", err);
        ctx.no_gpu = no_gpu;
    }
    cudnnStatus_t st = ctx.no_gpu ? CUDNN_STATUS_SUCCESS
                                  : dnb_lib_create(ctx.lib, o.backend, &ctx.h, &ctx.backend);
    if (ctx.no_gpu)
        ctx.backend = FREEDNN_BACKEND_CUDA;
    if (st != CUDNN_STATUS_SUCCESS) {
        dnb_lib_error(ctx.lib, st, err, sizeof err);
        fprintf(stderr, "dnnbench: cannot create a freednn handle on backend %s: %s\n",
                o.backend >= 0 ? backend_name(o.backend) : "(default)", err);
        return 1;
    }
    if (!ctx.no_gpu && (ctx.dev = dnb_device_for(ctx.backend, err, sizeof err)) == NULL) {
        fprintf(stderr, "dnnbench: backend %s: %s\n", backend_name(ctx.backend), err);
        return 1;
    }
    /* our handle's own stream: events time only its work, and graphs can be captured on it */
    if (ctx.dev && ctx.dev->stream_create) {
        if ((ctx.stream = ctx.dev->stream_create(err, sizeof err)) == NULL ||
            (st = ctx.lib->cudnnSetStream(ctx.h, ctx.stream)) != CUDNN_STATUS_SUCCESS) {
            if (ctx.stream)
                dnb_lib_error(ctx.lib, st, err, sizeof err);
            fprintf(stderr, "dnnbench: a stream for the freednn handle: %s\n", err);
            return 1;
        }
    }
    if ((st = dnb_lib_create(ctx.lib, FREEDNN_BACKEND_REF, &ctx.h_ref, &(int){0})) !=
        CUDNN_STATUS_SUCCESS) {
        dnb_lib_error(ctx.lib, st, err, sizeof err);
        fprintf(stderr, "dnnbench: cannot create the ref handle: %s\n", err);
        return 1;
    }
    printf("dnnbench: freednn %zu (cuDNN API %zu), backend %s\n",
           ctx.lib->freednnGetVersion ? ctx.lib->freednnGetVersion() : (size_t)0, ctx.lib->version,
           backend_name(ctx.backend));
    if (ctx.no_gpu)
        printf("dnnbench: SKIPPED: %s; every line is SKIPPED\n", ctx.no_gpu);
    if (o.graph && ctx.dev && ctx.dev->graph_begin == NULL)
        printf("dnnbench: --graph: SKIPPED: no GPU (backend %s runs on the host); plain timing "
               "only\n",
               backend_name(ctx.backend));
    if (o.host_burst && ctx.dev && ctx.dev->host_ms == NULL)
        printf("dnnbench: --host-burst: SKIPPED: no GPU (backend %s runs on the host); no host_ms column\n",
               backend_name(ctx.backend));
    if (o.vs != NULL && !ctx.no_gpu) {
        if ((ctx.vs = dnb_lib_load(o.vs, err, sizeof err)) == NULL) {
            fprintf(stderr, "dnnbench: --vs: %s\n", err);
            return 1;
        }
        /* a freednn copy runs on our backend; any other cuDNN on its own (the GPU) */
        int want = ctx.vs->freednnCreateWithBackend ? ctx.backend : -1;
        if ((st = dnb_lib_create(ctx.vs, want, &ctx.h_vs, &ctx.vs_backend)) !=
            CUDNN_STATUS_SUCCESS) {
            dnb_lib_error(ctx.vs, st, err, sizeof err);
            fprintf(stderr, "dnnbench: --vs: cannot create a handle in %s: %s\n", o.vs, err);
            return 1;
        }
        if ((ctx.vs_dev = dnb_device_for(ctx.vs_backend, err, sizeof err)) == NULL) {
            fprintf(stderr, "dnnbench: --vs=%s: %s\n", o.vs, err);
            return 1;
        }
        if (ctx.vs_dev != ctx.dev) {
            fprintf(stderr,
                    "dnnbench: --vs=%s runs on %s memory but freednn on %s; both must share one "
                    "device\n",
                    o.vs, ctx.vs_dev->name, ctx.dev->name);
            return 1;
        }
        /* their own stream: never the one of our handle, never the legacy default stream */
        if (ctx.vs_dev->stream_create) {
            if (ctx.vs->cudnnSetStream == NULL) {
                fprintf(stderr, "dnnbench: --vs=%s does not export cudnnSetStream\n", o.vs);
                return 1;
            }
            if ((ctx.vs_stream = ctx.vs_dev->stream_create(err, sizeof err)) == NULL ||
                (st = ctx.vs->cudnnSetStream(ctx.h_vs, ctx.vs_stream)) != CUDNN_STATUS_SUCCESS) {
                if (ctx.vs_stream)
                    dnb_lib_error(ctx.vs, st, err, sizeof err);
                fprintf(stderr, "dnnbench: a stream for the --vs handle: %s\n", err);
                return 1;
            }
        }
        printf("dnnbench: vs %s (cuDNN API %zu, %s), backend %s\n", o.vs, ctx.vs->version,
               ctx.vs->deepbind ? "main namespace, RTLD_DEEPBIND" : "its own link-map namespace",
               backend_name(ctx.vs_backend));
    }

    FILE *csv = NULL;
    char csv_tmp[64] = "";
    const char *csv_path = o.csv;
    if (csv_path == NULL && o.plot != NULL) {
        snprintf(csv_tmp, sizeof csv_tmp, "/tmp/dnnbench-XXXXXX.csv");
        int fd = mkstemps(csv_tmp, 4);
        if (fd >= 0)
            close(fd);
        csv_path = csv_tmp;
    }
    if (csv_path != NULL) {
        if ((csv = fopen(csv_path, "w")) == NULL) {
            fprintf(stderr, "dnnbench: cannot write %s: %s\n", csv_path, strerror(errno));
            return 1;
        }
        fputs(csv_header, csv);
    }

    /* widths, then the rows */
    for (int i = 0; i < probs.count; i++) {
        char text[160];
        if (o.n > 0)
            o.op->set_batch(&probs.p[i], o.n);
        o.op->format(&probs.p[i], text, sizeof text);
        int w = (int)strlen(text);
        prob_width = w > prob_width ? w : prob_width;
    }
    show_host = ctx.dev != NULL && ctx.dev->host_ms != NULL && (o.mode & DNB_MODE_PERF);
    show_graph =
        o.graph > 0 && ctx.dev != NULL && ctx.dev->graph_begin != NULL && (o.mode & DNB_MODE_PERF);
    table_header(&o);

    int counts[DNB_STATE_COUNT] = {0}, vs_counts[DNB_STATE_COUNT] = {0}, failed = 0, index = 0,
        ngeo = 0;
    geo_t geo[64], geo_graph[64];
    int ngeo_graph = 0;
    for (int i = 0; i < probs.count; i++) {
        for (int d = 0; o.op->dirs[d]; d++) {
            if (!dir_selected(o.op, o.dir, d))
                continue;
            dnb_row_t row;
            memset(&row, 0, sizeof row);
            row.index = index++;
            row.op = o.op->name;
            snprintf(row.dir, sizeof row.dir, "%s", o.op->dirs[d]);
            o.op->format(&probs.p[i], row.problem, sizeof row.problem);
            snprintf(row.tag, sizeof row.tag, "%s", probs.p[i].tag);
            row.flop = o.op->flop(&probs.p[i], d);
            row.bytes = o.op->bytes ? o.op->bytes(&probs.p[i], d, o.dt) : 0.0;
            row.zero_frac = -1;
            row.ours.algo = row.theirs.algo = -1;
            row.ours.err_ratio = row.theirs.err_ratio = -1;
            row.has_vs = ctx.vs != NULL;
            repro_line(&o, backend_name(ctx.backend), row.dir, row.problem, row.repro,
                       sizeof row.repro);
            if (ctx.no_gpu) {
                row.ours.ran = 1;
                row.ours.state = DNB_SKIPPED;
                snprintf(row.ours.reason, sizeof row.ours.reason, "%s", ctx.no_gpu);
                row.has_vs = 0;
            } else {
                o.op->run(&ctx, &probs.p[i], d, &row);
            }
            table_row(&o, &row);
            if (csv)
                csv_row(csv, &o, backend_name(ctx.backend), &row);
            counts[row.ours.state]++;
            failed |= row.ours.state == DNB_FAILED;
            if (row.has_vs && row.theirs.ran) {
                vs_counts[row.theirs.state]++;
                failed |= row.theirs.state == DNB_FAILED;
            }
            if (row.has_vs && row.ours.t.samples && row.theirs.t.samples) {
                char key[64];
                snprintf(key, sizeof key, "%s %s %s", row.op, row.dir, o.dt->name);
                geo_add(geo, &ngeo, 64, key, row.theirs.t.med_ms / row.ours.t.med_ms);
                if (row.ours.t.graph_calls > 0 && row.theirs.t.graph_calls > 0)
                    geo_add(geo_graph, &ngeo_graph, 64, key,
                            row.theirs.t.graph_ms / row.ours.t.graph_ms);
            }
        }
    }

    printf("tests:%d passed:%d skipped:%d mistrusted:%d failed:%d executed:%d\n", index,
           counts[DNB_PASSED], counts[DNB_SKIPPED], counts[DNB_MISTRUSTED], counts[DNB_FAILED],
           counts[DNB_EXECUTED]);
    if (ctx.vs)
        printf("vs tests:%d passed:%d skipped:%d mistrusted:%d failed:%d executed:%d\n", index,
               vs_counts[DNB_PASSED], vs_counts[DNB_SKIPPED], vs_counts[DNB_MISTRUSTED],
               vs_counts[DNB_FAILED], vs_counts[DNB_EXECUTED]);
    for (int g = 0; g < ngeo; g++)
        printf("geomean %s speedup=%.4f n=%d\n", geo[g].key, exp(geo[g].log_sum / geo[g].n),
               geo[g].n);
    /* --graph: the same over graph time per call, where both sides were captured */
    for (int g = 0; g < ngeo_graph; g++)
        printf("geomean_graph %s speedup=%.4f n=%d\n", geo_graph[g].key,
               exp(geo_graph[g].log_sum / geo_graph[g].n), geo_graph[g].n);

    int rc = failed ? 1 : 0;
    if (csv) {
        fclose(csv);
        if (o.plot) {
            char *args[] = {"/usr/bin/python3", (char *)plot_script(), (char *)csv_path,
                            (char *)o.plot, NULL};
            int pr = run_python(args);
            if (pr != 0) {
                fprintf(stderr, "dnnbench: the plot %s was not written (plot.py exit %d)\n", o.plot,
                        pr);
                rc = 1;
            } else {
                printf("dnnbench: wrote %s\n", o.plot);
            }
        }
        if (csv_tmp[0])
            unlink(csv_tmp);
    }
    if (ctx.h)
        ctx.lib->cudnnDestroy(ctx.h);
    ctx.lib->cudnnDestroy(ctx.h_ref);
    if (ctx.stream)
        ctx.dev->stream_destroy(ctx.stream);
    if (ctx.vs) {
        ctx.vs->cudnnDestroy(ctx.h_vs);
        if (ctx.vs_stream)
            ctx.vs_dev->stream_destroy(ctx.vs_stream);
        dnb_lib_close(ctx.vs);
    }
    free(probs.p);
    return rc;
}
