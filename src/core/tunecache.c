/* SPDX-License-Identifier: MIT */
/*
 * tunecache.c - the tuning cache (tunecache.h, docs/tuning.md): per handle a hash table of
 * Find rankings, and behind it one text file. Line 1 is "freednn-tune-cache v1"; then one record
 * per line, "device TAB version TAB problem-key TAB n a,s,t,m,d,M ... TAB fnv1a32-hex".
 * Writers hold an flock on "<file>.lock", merge their record into what the file holds now,
 * write a temp file in the same directory and rename it over the file, so readers (no lock)
 * see the old file or the new one, never half of one. Anything unusable is skipped with one
 * warning per file state; no function here fails its caller.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "tunecache.h"

#define TC_HEADER "freednn-tune-cache v1"
#define TC_HEADER_STEM "freednn-tune-cache "
#define TC_FILE_NAME "tune-v1.txt"
#define TC_BUCKETS 256
#define TC_LINE_MAX 4096
#define TC_FILE_MAX ((size_t)64 << 20)
#define TC_LOCK_WAIT_MS 10000

typedef struct tc_rec {
    struct tc_rec *next;
    uint32_t hash;
    fd_tune_record_t r;
    char key[]; /* fd_conv_problem_key */
} tc_rec_t;

struct fd_tunecache {
    tc_rec_t *bucket[TC_BUCKETS];
    char *path;    /* NULL: results stay in this handle */
    int loaded;    /* the file has been read into the table once */
    int read_only; /* a write failed: keep reading the file, stop writing it */
    char device[512];
    char version[64];
    int have_warned; /* warn once per state of the file (device, inode, size, mtime) */
    struct stat warned;
    unsigned long stat[FD_TUNE_STAT_COUNT];
    unsigned long stores;
};

static uint32_t fnv1a32(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* ---- identity: device and library ------------------------------------------------------- */

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static char cpu_model[256];
static int cpu_cores;
static uint32_t impl_fingerprint;

static void sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = ' ';
}

static void probe(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f != NULL) {
        char line[512];
        while (cpu_model[0] == '\0' && fgets(line, sizeof line, f) != NULL) {
            char *colon = strchr(line, ':');
            if (strncmp(line, "model name", 10) != 0 || colon == NULL)
                continue;
            colon++;
            while (*colon == ' ' || *colon == '\t')
                colon++;
            size_t n = strcspn(colon, "\r\n");
            while (n > 0 && colon[n - 1] == ' ')
                n--;
            snprintf(cpu_model, sizeof cpu_model, "%.*s", (int)n, colon);
        }
        fclose(f);
    }
    if (cpu_model[0] == '\0') { /* no "model name" (some arm64 kernels): the architecture */
        struct utsname u;
        snprintf(cpu_model, sizeof cpu_model, "unknown %s", uname(&u) == 0 ? u.machine : "cpu");
    }
    sanitize(cpu_model);
    cpu_set_t set;
    cpu_cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (cpu_cores <= 0)
        cpu_cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    /* A rebuilt library with other implementations times other code: its records differ. */
    uint32_t h = 2166136261u;
    for (int i = 0; i < fd_conv_impl_count; i++) {
        const fd_conv_impl_t *m = &fd_conv_impls[i];
        char row[256];
        int n = snprintf(row, sizeof row, "%s %d %d %x %d;", m->name, (int)m->backend, (int)m->dir,
                         m->algo_mask, m->flags);
        for (int j = 0; j < n && j < (int)sizeof row; j++)
            h = (h ^ (unsigned char)row[j]) * 16777619u;
    }
    impl_fingerprint = h;
}

__attribute__((weak)) int fd_tunecache_cuda_identity(cudnnHandle_t handle, char *buf, size_t size)
{
    (void)handle, (void)buf, (void)size;
    return 0;
}

/* "cpu|AMD EPYC|cores=16|threads=16": what the measured times depend on. threads is
 * OMP_NUM_THREADS where set (the cpu backend's OpenMP team), else the cores we may run on. */
static int device_identity(cudnnHandle_t handle, char *buf, size_t size)
{
    if (handle->backend == FD_BACKEND_CUDA) {
        char dev[400];
        if (!fd_tunecache_cuda_identity(handle, dev, sizeof dev))
            return 0;
        snprintf(buf, size, "cuda|%s", dev);
    } else {
        const char *omp = getenv("OMP_NUM_THREADS");
        int threads = omp != NULL ? atoi(omp) : 0;
        snprintf(buf, size, "%s|%s|cores=%d|threads=%d",
                 freednnGetBackendName((freednnBackend_t)handle->backend), cpu_model, cpu_cores,
                 threads > 0 ? threads : cpu_cores);
    }
    sanitize(buf);
    return 1;
}

/* ---- the handle's table ----------------------------------------------------------------- */

static char *path_from_env(void)
{
    const char *env = getenv("FREEDNN_TUNE_CACHE");
    char *path = NULL;
    if (env != NULL && env[0] != '\0') {
        if (env[0] == '/') {
            path = strdup(env);
        } else { /* relative to the directory of the first use, not of each later call */
            char cwd[4096];
            if (getcwd(cwd, sizeof cwd) != NULL && asprintf(&path, "%s/%s", cwd, env) < 0)
                path = NULL;
        }
        return path;
    }
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg != NULL && xdg[0] == '/') { /* the XDG spec ignores relative values */
        if (asprintf(&path, "%s/freednn/" TC_FILE_NAME, xdg) < 0)
            path = NULL;
    } else if (home != NULL && home[0] != '\0') {
        if (asprintf(&path, "%s/.cache/freednn/" TC_FILE_NAME, home) < 0)
            path = NULL;
    } else {
        fd_log_warning(
            "freednn tuning cache: neither XDG_CACHE_HOME nor HOME is set and "
            "FREEDNN_TUNE_CACHE names no file; Find results are kept in the handle only");
    }
    return path;
}

static struct fd_tunecache *tc_get(cudnnHandle_t handle)
{
    if (handle->tune != NULL)
        return handle->tune;
    struct fd_tunecache *tc = calloc(1, sizeof *tc);
    if (tc == NULL)
        return NULL;
    pthread_once(&probe_once, probe);
    snprintf(tc->version, sizeof tc->version, "%d:%08x", FREEDNN_VERSION,
             (unsigned)impl_fingerprint);
    const char *env = getenv("FREEDNN_TUNE_CACHE");
    int known = device_identity(handle, tc->device, sizeof tc->device);
    if (env != NULL && strcmp(env, "off") == 0)
        tc->path = NULL;
    else if (!known)
        fd_log_info("freednn tuning cache: the %s backend reports no device identity yet; Find "
                    "results are kept in the handle only",
                    freednnGetBackendName((freednnBackend_t)handle->backend));
    else
        tc->path = path_from_env();
    handle->tune = tc;
    return tc;
}

static tc_rec_t *tc_find(struct fd_tunecache *tc, const char *key, uint32_t hash)
{
    for (tc_rec_t *r = tc->bucket[hash % TC_BUCKETS]; r != NULL; r = r->next)
        if (r->hash == hash && strcmp(r->key, key) == 0)
            return r;
    return NULL;
}

static void tc_put(struct fd_tunecache *tc, const char *key, const fd_tune_record_t *rec,
                   int replace)
{
    uint32_t hash = fnv1a32(key, strlen(key));
    tc_rec_t *r = tc_find(tc, key, hash);
    if (r != NULL) {
        if (replace)
            r->r = *rec;
        return;
    }
    size_t klen = strlen(key) + 1;
    r = malloc(sizeof *r + klen);
    if (r == NULL)
        return;
    r->hash = hash;
    r->r = *rec;
    memcpy(r->key, key, klen);
    r->next = tc->bucket[hash % TC_BUCKETS];
    tc->bucket[hash % TC_BUCKETS] = r;
}

/* ---- the file: parsing ------------------------------------------------------------------ */

typedef struct {
    const char *line; /* the raw line, without its newline */
    size_t len;
    size_t ident_len; /* bytes of "device TAB version TAB key" */
    char device[512], version[64], key[1024];
    fd_tune_record_t rec;
} tc_line_t;

static int parse_long(const char **s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(*s, &end, 10);
    if (end == *s || errno != 0 || x < lo || x > hi || (**s != '-' && (**s < '0' || **s > '9')))
        return 0;
    *v = x, *s = end;
    return 1;
}

static int expect_char(const char **s, char c)
{
    if (**s != c)
        return 0;
    (*s)++;
    return 1;
}

/* "n a,s,t,m,d,M ..." (entries NUL-terminated). */
static const char *parse_entries(const char *s, fd_tune_record_t *rec)
{
    long n, v[3];
    if (!parse_long(&s, 1, FD_TUNE_MAX_ALGOS, &n))
        return "the entry count is not 1..16";
    unsigned seen = 0;
    rec->count = (int)n;
    for (int i = 0; i < n; i++) {
        fd_tune_entry_t *e = &rec->e[i];
        if (!expect_char(&s, ' ') || !parse_long(&s, 0, FD_TUNE_MAX_ALGOS - 1, &v[0]) ||
            !expect_char(&s, ',') || !parse_long(&s, 0, 100000, &v[1]) || !expect_char(&s, ','))
            return "an entry is not algo,status,time,memory,determinism,math";
        char *end;
        errno = 0;
        float t = strtof(s, &end);
        if (end == s || errno != 0 || !isfinite(t) || *end != ',')
            return "an entry has no valid time";
        s = end + 1;
        if (*s < '0' || *s > '9')
            return "an entry has no valid memory size";
        errno = 0;
        unsigned long long mem = strtoull(s, &end, 10);
        if (errno != 0 || (unsigned long long)(size_t)mem != mem)
            return "an entry has no valid memory size";
        s = end;
        if (!expect_char(&s, ',') || !parse_long(&s, 0, 1, &v[2]) || !expect_char(&s, ','))
            return "an entry has no valid determinism";
        long math;
        if (!parse_long(&s, 0, 3, &math))
            return "an entry has no valid math type";
        if (seen & (1u << v[0]))
            return "an algorithm appears twice";
        seen |= 1u << v[0];
        *e = (fd_tune_entry_t){(int)v[0],   (cudnnStatus_t)v[1],      t,
                               (size_t)mem, (cudnnDeterminism_t)v[2], (cudnnMathType_t)math};
    }
    return *s == '\0' ? NULL : "text after the last entry";
}

static int copy_field(char *dst, size_t size, const char *src, size_t len)
{
    if (len == 0 || len >= size)
        return 0;
    memcpy(dst, src, len);
    dst[len] = '\0';
    return 1;
}

/* NULL when the line is a valid record (fills *out), else why not. */
static const char *parse_line(const char *line, size_t len, tc_line_t *out)
{
    if (len > TC_LINE_MAX)
        return "a line is longer than 4096 bytes";
    size_t tab[4];
    int ntab = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c == '\t') {
            if (ntab == 4)
                return "a line has more than 5 tab-separated fields";
            tab[ntab++] = i;
        } else if (c < 0x20 || c == 0x7f) {
            return "a line holds a control character";
        }
    }
    if (ntab != 4)
        return "a line has fewer than 5 tab-separated fields";
    char sum[9];
    if (!copy_field(sum, sizeof sum, line + tab[3] + 1, len - tab[3] - 1) || strlen(sum) != 8 ||
        strspn(sum, "0123456789abcdef") != 8)
        return "a line has no 8-digit checksum";
    char want[9];
    snprintf(want, sizeof want, "%08x", (unsigned)fnv1a32(line, tab[3]));
    if (strcmp(sum, want) != 0)
        return "a line fails its checksum (truncated or edited)";
    char entries[2048];
    if (!copy_field(out->device, sizeof out->device, line, tab[0]) ||
        !copy_field(out->version, sizeof out->version, line + tab[0] + 1, tab[1] - tab[0] - 1) ||
        !copy_field(out->key, sizeof out->key, line + tab[1] + 1, tab[2] - tab[1] - 1) ||
        !copy_field(entries, sizeof entries, line + tab[2] + 1, tab[3] - tab[2] - 1))
        return "a line has an empty or overlong field";
    const char *why = parse_entries(entries, &out->rec);
    if (why != NULL)
        return why;
    out->line = line, out->len = len, out->ident_len = tab[2];
    return NULL;
}

typedef void (*tc_visit_t)(void *ctx, const tc_line_t *l);

/* Visits every valid record of buf (NUL-terminated, may be modified). Returns the number of
 * unusable lines, -1 when the whole file is foreign; *why says the first problem. */
static int parse_file(const char *buf, size_t len, tc_visit_t visit, void *ctx, const char **why)
{
    static _Thread_local char header_why[160];
    const char *nl = memchr(buf, '\n', len);
    size_t hlen = nl != NULL ? (size_t)(nl - buf) : len;
    if (nl == NULL || hlen != strlen(TC_HEADER) || memcmp(buf, TC_HEADER, hlen) != 0) {
        if (hlen > strlen(TC_HEADER_STEM) && hlen < 64 &&
            memcmp(buf, TC_HEADER_STEM, strlen(TC_HEADER_STEM)) == 0 &&
            memchr(buf, '\0', hlen) == NULL) {
            snprintf(header_why, sizeof header_why,
                     "its header is '%.*s', a format this library "
                     "does not read (it reads '" TC_HEADER "')",
                     (int)hlen, buf);
            *why = header_why;
        } else {
            *why = "it does not start with the line '" TC_HEADER "'";
        }
        return -1;
    }
    int bad = 0;
    tc_line_t *l = malloc(sizeof *l);
    if (l == NULL)
        return 0;
    for (size_t at = hlen + 1; at < len;) {
        const char *line = buf + at;
        nl = memchr(line, '\n', len - at);
        size_t n = nl != NULL ? (size_t)(nl - line) : len - at;
        at += n + 1;
        if (nl == NULL) { /* a writer's rename never leaves a partial line: this was cut */
            if (bad++ == 0)
                *why = "the last line is cut short (no newline)";
            continue;
        }
        if (n == 0 || line[0] == '#')
            continue;
        const char *w = parse_line(line, n, l);
        if (w == NULL)
            visit(ctx, l);
        else if (bad++ == 0)
            *why = w;
    }
    free(l);
    return bad;
}

/* Warns about the file once per state of it, so one corrupt file gives one warning, not one
 * per Find. */
static void warn_file(struct fd_tunecache *tc, const struct stat *st, const char *fmt, ...)
    FD_PRINTF(3, 4);
static void warn_file(struct fd_tunecache *tc, const struct stat *st, const char *fmt, ...)
{
    if (tc->have_warned && st->st_dev == tc->warned.st_dev && st->st_ino == tc->warned.st_ino &&
        st->st_size == tc->warned.st_size && st->st_mtim.tv_sec == tc->warned.st_mtim.tv_sec &&
        st->st_mtim.tv_nsec == tc->warned.st_mtim.tv_nsec)
        return;
    tc->have_warned = 1;
    tc->warned = *st;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fd_log_warning("freednn tuning cache %s: %s", tc->path, msg);
}

/* The whole file, NUL-terminated; NULL when it does not exist or cannot be read (warned). */
static char *read_file(struct fd_tunecache *tc, size_t *len, struct stat *st)
{
    memset(st, 0, sizeof *st);
    int fd = open(tc->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            warn_file(tc, st, "cannot be read (%s); it is ignored", strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        warn_file(tc, st, "is not a regular file; it is ignored");
        goto done;
    }
    if ((size_t)st->st_size > TC_FILE_MAX) {
        warn_file(tc, st, "is larger than 64 MiB; it is ignored (and replaced on the next write)");
        goto done;
    }
    buf = malloc((size_t)st->st_size + 1);
    if (buf == NULL)
        goto done;
    size_t got = 0;
    while (got < (size_t)st->st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st->st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    buf[got] = '\0';
    *len = got;
done:
    close(fd);
    return buf;
}

typedef struct {
    struct fd_tunecache *tc;
} load_ctx_t;

static void load_visit(void *ctx, const tc_line_t *l)
{
    struct fd_tunecache *tc = ((load_ctx_t *)ctx)->tc;
    if (strcmp(l->device, tc->device) == 0 && strcmp(l->version, tc->version) == 0)
        tc_put(tc, l->key, &l->rec, 0); /* this handle's own results stay as they are */
}

static void report_bad(struct fd_tunecache *tc, const struct stat *st, int bad, const char *why)
{
    if (bad < 0)
        warn_file(tc, st, "%s; the file is ignored and replaced when a Find next stores a result",
                  why);
    else if (bad > 0)
        warn_file(tc, st,
                  "%d unusable line%s (first: %s); %s ignored and dropped when a Find next stores "
                  "a result",
                  bad, bad == 1 ? "" : "s", why, bad == 1 ? "it is" : "they are");
}

/* Adds the file's records of this device and version to the table. */
static void load_file(struct fd_tunecache *tc)
{
    size_t len = 0;
    struct stat st;
    char *buf = read_file(tc, &len, &st);
    if (buf == NULL)
        return;
    load_ctx_t ctx = {tc};
    const char *why = "";
    int bad = parse_file(buf, len, load_visit, &ctx, &why);
    report_bad(tc, &st, bad, why);
    free(buf);
}

/* ---- the file: writing ------------------------------------------------------------------ */

static void stop_writing(struct fd_tunecache *tc, const char *what, const char *target, int err)
{
    fd_log_warning("freednn tuning cache %s: cannot %s %s (%s); Find results are no longer "
                   "written to it",
                   tc->path, what, target, strerror(err));
    tc->read_only = 1;
}

/* mkdir -p of the directory that holds path; 0 or an errno. */
static int make_parent(const char *path)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return ENAMETOOLONG;
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return errno;
        *p = c;
        if (c == '\0')
            return 0;
    }
}

typedef struct {
    FILE *out;
    const char *line; /* our record, with its newline */
    size_t ident_len; /* of our record */
    int written;
} merge_ctx_t;

static void merge_visit(void *ctx, const tc_line_t *l)
{
    merge_ctx_t *m = ctx;
    if (l->ident_len == m->ident_len && memcmp(l->line, m->line, m->ident_len) == 0) {
        if (!m->written) /* our record takes the place of the one it replaces */
            fputs(m->line, m->out);
        m->written = 1;
        return;
    }
    fwrite(l->line, 1, l->len, m->out);
    fputc('\n', m->out);
}

static int lock_file(int fd)
{
    for (int waited = 0;; waited += 2) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return errno;
        if (waited >= TC_LOCK_WAIT_MS)
            return ETIMEDOUT;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
}

/* Merges `line` (ident_len bytes of identity) into the file under the lock. */
static void save_line(struct fd_tunecache *tc, const char *line, size_t ident_len)
{
    char lock_path[4200], target[4096], tmp[4200];
    int err = make_parent(tc->path);
    if (err != 0) {
        stop_writing(tc, "create the directory of", tc->path, err);
        return;
    }
    snprintf(target, sizeof target, "%s", tc->path);
    struct stat lst;
    if (lstat(tc->path, &lst) == 0 && S_ISLNK(lst.st_mode)) { /* replace what the link names */
        char *real = realpath(tc->path, NULL);
        if (real != NULL)
            snprintf(target, sizeof target, "%s", real);
        free(real);
    }
    snprintf(lock_path, sizeof lock_path, "%s.lock", tc->path);
    int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0) {
        stop_writing(tc, "create the lock file", lock_path, errno);
        return;
    }
    err = lock_file(lock);
    if (err != 0) {
        fd_log_warning("freednn tuning cache %s: cannot lock %s (%s); this Find result is not "
                       "written",
                       tc->path, lock_path, strerror(err));
        close(lock);
        return;
    }
    size_t len = 0;
    struct stat st;
    char *buf = read_file(tc, &len, &st);
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", target);
    int fd = mkostemp(tmp, O_CLOEXEC);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (out == NULL) {
        stop_writing(tc, "create a file beside", target, errno);
        if (fd >= 0)
            close(fd), unlink(tmp);
        goto unlock;
    }
    fchmod(fd, buf != NULL ? (st.st_mode & 0777) : 0644);
    fputs(TC_HEADER
          "\n# device\tlibrary\tproblem\tn algo,status,time_ms,memory,determinism,math ...\t"
          "fnv1a32 (docs/tuning.md)\n",
          out);
    merge_ctx_t m = {out, line, ident_len, 0};
    if (buf != NULL) {
        const char *why = "";
        int bad = parse_file(buf, len, merge_visit, &m, &why);
        report_bad(tc, &st, bad, why);
    }
    if (!m.written)
        fputs(line, out);
    int failed = ferror(out);
    if (fclose(out) != 0 || failed) {
        stop_writing(tc, "write", tmp, errno ? errno : EIO);
        unlink(tmp);
    } else if (rename(tmp, target) != 0) {
        stop_writing(tc, "replace", target, errno);
        unlink(tmp);
    }
unlock:
    free(buf);
    flock(lock, LOCK_UN);
    close(lock);
}

/* "device TAB version TAB key TAB n a,s,t,m,d,M ... TAB checksum NL"; its length, 0 if too long. */
static size_t format_line(const struct fd_tunecache *tc, const char *key,
                          const fd_tune_record_t *rec, char *line, size_t size, size_t *ident_len)
{
    int n = snprintf(line, size, "%s\t%s\t%s", tc->device, tc->version, key);
    if (n < 0 || (size_t)n >= size)
        return 0;
    *ident_len = (size_t)n;
    n += snprintf(line + n, size - (size_t)n, "\t%d", rec->count);
    for (int i = 0; i < rec->count && (size_t)n < size; i++) {
        const fd_tune_entry_t *e = &rec->e[i];
        n += snprintf(line + n, size - (size_t)n, " %d,%d,%.9g,%zu,%d,%d", e->algo, (int)e->status,
                      isfinite(e->time) ? (double)e->time : -1.0, e->memory, (int)e->determinism,
                      (int)e->math);
    }
    if ((size_t)n >= size)
        return 0;
    uint32_t sum = fnv1a32(line, (size_t)n);
    n += snprintf(line + n, size - (size_t)n, "\t%08x\n", (unsigned)sum);
    return (size_t)n < size && (size_t)n <= TC_LINE_MAX ? (size_t)n : 0;
}

/* ---- the interface ---------------------------------------------------------------------- */

int fd_tunecache_lookup(cudnnHandle_t handle, const fd_conv_problem_t *p, fd_tune_use_t use,
                        fd_tune_record_t *rec)
{
    struct fd_tunecache *tc = tc_get(handle);
    if (tc == NULL)
        return 0;
    char key[1024];
    fd_conv_problem_key(p, key, sizeof key);
    uint32_t hash = fnv1a32(key, strlen(key));
    int fresh = 0;
    if (!tc->loaded && tc->path != NULL)
        load_file(tc), fresh = 1;
    tc->loaded = 1;
    tc_rec_t *r = tc_find(tc, key, hash);
    if (r == NULL && use == FD_TUNE_FOR_FIND && tc->path != NULL && !fresh) {
        load_file(tc); /* another process may have tuned it since */
        r = tc_find(tc, key, hash);
    }
    if (r == NULL)
        return 0;
    *rec = r->r;
    return 1;
}

void fd_tunecache_store(cudnnHandle_t handle, const fd_conv_problem_t *p,
                        const fd_tune_record_t *rec)
{
    struct fd_tunecache *tc = tc_get(handle);
    if (tc == NULL || rec->count < 1 || rec->count > FD_TUNE_MAX_ALGOS)
        return;
    char key[1024];
    fd_conv_problem_key(p, key, sizeof key);
    tc_put(tc, key, rec, 1);
    tc->stores++;
    if (tc->path == NULL || tc->read_only)
        return;
    char line[TC_LINE_MAX + 2];
    size_t ident_len = 0;
    if (format_line(tc, key, rec, line, sizeof line, &ident_len) == 0) {
        fd_log_info("freednn tuning cache: the record of %s is too long to store", key);
        return;
    }
    save_line(tc, line, ident_len);
}

void fd_tunecache_note(cudnnHandle_t handle, fd_tune_stat_t what)
{
    static const char *const says[FD_TUNE_STAT_COUNT] = {
        "a Find answered from the tuning cache, nothing timed",
        "a Find timed every algorithm (not in the tuning cache)",
        "Get*Algorithm_v7 ranked by the times of a cached Find"};
    struct fd_tunecache *tc = tc_get(handle);
    if (tc == NULL || (int)what < 0 || what >= FD_TUNE_STAT_COUNT)
        return;
    tc->stat[what]++;
    if (fd_env_flag("FREEDNN_LOG_DISPATCH"))
        fd_log_info("dispatch: %s", says[what]);
}

void fd_tunecache_free(cudnnHandle_t handle)
{
    struct fd_tunecache *tc = handle->tune;
    if (fd_env_flag("FREEDNN_TUNE_CACHE_STATS"))
        fprintf(
            stderr,
            "freednn: tune cache: find_hits=%lu find_misses=%lu get_hits=%lu stores=%lu file=%s\n",
            tc ? tc->stat[FD_TUNE_FIND_HIT] : 0, tc ? tc->stat[FD_TUNE_FIND_MISS] : 0,
            tc ? tc->stat[FD_TUNE_GET_HIT] : 0, tc ? tc->stores : 0,
            tc == NULL         ? "(unused)"
            : tc->path != NULL ? tc->path
                               : "off");
    if (tc == NULL)
        return;
    for (int b = 0; b < TC_BUCKETS; b++)
        for (tc_rec_t *r = tc->bucket[b], *next; r != NULL; r = next)
            next = r->next, free(r);
    free(tc->path);
    free(tc);
    handle->tune = NULL;
}
