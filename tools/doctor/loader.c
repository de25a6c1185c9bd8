/* SPDX-License-Identifier: MIT */
/*
 * loader.c - check 3: which libcudnn the dynamic loader would hand a program that asks for
 * libcudnn.so.9, .so.8, .so.7 or .so, and from where. It follows ld.so's order for a program
 * without RPATH/RUNPATH: LD_LIBRARY_PATH, then /etc/ld.so.cache (read through `ldconfig -p`),
 * then the default directories. No libcudnn is ever dlopen-ed (DESIGN D2): a candidate is
 * identified by scanning its bytes for "freednnGetVersion", which only freednn exports.
 */
#define _GNU_SOURCE /* dladdr, dlinfo, RTLD_NEXT, memmem, strndup */
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"

static const char *const names[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so.7",
                                    "libcudnn.so"};
#define NNAMES (sizeof names / sizeof names[0])

#if defined(__x86_64__)
#define ABI_TAG "x86-64"
static const char *const default_dirs[] = {"/lib/x86_64-linux-gnu",
                                           "/usr/lib/x86_64-linux-gnu",
                                           "/lib64",
                                           "/usr/lib64",
                                           "/lib",
                                           "/usr/lib"};
#elif defined(__aarch64__)
#define ABI_TAG "AArch64"
static const char *const default_dirs[] = {"/lib/aarch64-linux-gnu",
                                           "/usr/lib/aarch64-linux-gnu",
                                           "/lib64",
                                           "/usr/lib64",
                                           "/lib",
                                           "/usr/lib"};
#else
#define ABI_TAG ""
static const char *const default_dirs[] = {"/lib64", "/usr/lib64", "/lib", "/usr/lib"};
#endif

typedef enum { KIND_FREEDNN, KIND_NVIDIA, KIND_OTHER_ELF, KIND_NOT_ELF, KIND_UNREADABLE } kind_t;

static const char *const kind_text[] = {
    "freednn",
    "NVIDIA's cuDNN (cuDNN symbols, no freednnGetVersion)",
    "an ELF file without cuDNN symbols",
    "not an ELF library (a placeholder or a broken copy)",
    "unreadable",
};
static const char *const kind_json[] = {"freednn", "nvidia", "other-elf", "not-elf", "unreadable"};

#define MAX_HITS 64

typedef struct {
    char path[4096];
    const char *via; /* "LD_LIBRARY_PATH", "ld.so.cache", "default dir" */
    dev_t dev;
    ino_t ino;
} hit_t;

typedef struct {
    hit_t hits[MAX_HITS];
    int n;
} hits_t;

/* Distinct files seen, by inode, with their kind. */
typedef struct {
    dev_t dev;
    ino_t ino;
    kind_t kind;
    char path[4096];
} file_t;

static kind_t scan_file(const char *path)
{
    static const char ours[] = "freednnGetVersion", cudnn[] = "cudnnCreate";
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return KIND_UNREADABLE;
    enum { CHUNK = 1 << 20, KEEP = sizeof ours - 1 };
    char *buf = malloc(CHUNK + KEEP);
    if (buf == NULL) {
        fclose(f);
        return KIND_UNREADABLE;
    }
    size_t have = 0, got;
    int first = 1, elf = 0, has_cudnn = 0, has_ours = 0;
    while (!has_ours && (got = fread(buf + have, 1, CHUNK, f)) > 0) {
        size_t len = have + got;
        if (first) {
            elf = len >= 4 && memcmp(buf,
                                     "\x7f"
                                     "ELF",
                                     4) == 0;
            first = 0;
        }
        has_ours = memmem(buf, len, ours, sizeof ours - 1) != NULL;
        has_cudnn = has_cudnn || memmem(buf, len, cudnn, sizeof cudnn - 1) != NULL;
        have = len < KEEP ? len : KEEP; /* a name may straddle two chunks */
        memmove(buf, buf + len - have, have);
    }
    free(buf);
    fclose(f);
    if (!elf)
        return KIND_NOT_ELF;
    return has_ours ? KIND_FREEDNN : has_cudnn ? KIND_NVIDIA : KIND_OTHER_ELF;
}

static void add_hit(hits_t *h, const char *path, const char *via)
{
    struct stat st;
    if (h->n >= MAX_HITS || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    for (int i = 0; i < h->n; i++)
        if (strcmp(h->hits[i].path, path) == 0)
            return;
    hit_t *x = &h->hits[h->n++];
    snprintf(x->path, sizeof x->path, "%.*s", (int)sizeof x->path - 1, path);
    x->via = via;
    x->dev = st.st_dev;
    x->ino = st.st_ino;
}

typedef struct {
    char name[64];
    char path[4096];
} cache_entry_t;

typedef struct {
    cache_entry_t *e;
    int n, cap;
    int total; /* every line of ldconfig -p, not only libcudnn */
    int ran;
    char ldconfig[64];
} cache_t;

static void read_cache(cache_t *cache)
{
    static const char *const candidates[] = {"/sbin/ldconfig", "/usr/sbin/ldconfig",
                                             "/bin/ldconfig", "/usr/bin/ldconfig"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (access(candidates[i], X_OK) == 0) {
            snprintf(cache->ldconfig, sizeof cache->ldconfig, "%s", candidates[i]);
            break;
        }
    }
    if (!cache->ldconfig[0])
        return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "%s -p 2>/dev/null", cache->ldconfig);
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return;
    cache->ran = 1;
    char line[8192];
    /* "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.9" */
    while (fgets(line, sizeof line, p) != NULL) {
        char *name = line + strspn(line, " \t");
        char *paren = strstr(name, " (");
        char *arrow = strstr(name, ") => ");
        if (paren == NULL || arrow == NULL || arrow < paren)
            continue;
        cache->total++;
        *paren = '\0';
        *arrow = '\0';
        const char *flags = paren + 2;
        char *path = arrow + 5;
        path[strcspn(path, "\n")] = '\0';
        if (strncmp(name, "libcudnn.so", 11) != 0 || (ABI_TAG[0] && strstr(flags, ABI_TAG) == NULL))
            continue;
        if (cache->n == cache->cap) {
            int cap = cache->cap ? 2 * cache->cap : 16;
            cache_entry_t *e = realloc(cache->e, (size_t)cap * sizeof *e);
            if (e == NULL)
                break;
            cache->e = e, cache->cap = cap;
        }
        snprintf(cache->e[cache->n].name, sizeof cache->e[cache->n].name, "%s", name);
        snprintf(cache->e[cache->n].path, sizeof cache->e[cache->n].path, "%s", path);
        cache->n++;
    }
    pclose(p);
}

/* The directories /etc/ld.so.conf names (following `include` globs), for the stale-cache test. */
static void read_conf(const char *file, dr_buf_t *dirs, int depth)
{
    FILE *f = depth < 4 ? fopen(file, "r") : NULL;
    if (f == NULL)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "#\n")] = '\0';
        char *s = line + strspn(line, " \t");
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            s[--n] = '\0';
        if (n == 0)
            continue;
        if (strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t')) {
            char *pat = s + 8 + strspn(s + 8, " \t");
            char full[4096];
            if (pat[0] != '/')
                snprintf(full, sizeof full, "/etc/%s", pat);
            else
                snprintf(full, sizeof full, "%s", pat);
            glob_t g;
            if (glob(full, 0, NULL, &g) == 0) {
                for (size_t i = 0; i < g.gl_pathc; i++)
                    read_conf(g.gl_pathv[i], dirs, depth + 1);
            }
            globfree(&g);
        } else if (s[0] == '/') {
            dr_buf_printf(dirs, "%s\n", s);
        }
    }
    fclose(f);
}

/* The directory holding freednn's own libcudnn.so.9 name: beside the loaded libfreednn (an
 * install), or its build tree's cudnn-names/. Returns 1 with `out` set; else 0 with `out` the
 * directory of libfreednn ("" when unknown). */
static int freednn_names_dir(char *out, size_t size)
{
    Dl_info info;
    char real[4096], dir[4096], p[8300];
    out[0] = '\0';
    void *sym = dlsym(RTLD_NEXT, "freednnGetVersion");
    if (sym == NULL || dladdr(sym, &info) == 0 || info.dli_fname == NULL ||
        realpath(info.dli_fname, real) == NULL)
        return 0;
    snprintf(dir, sizeof dir, "%s", real);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        return 0;
    *slash = '\0';
    snprintf(out, size, "%s", dir);
    static const char *const subdirs[] = {"", "/cudnn-names"};
    for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
        snprintf(p, sizeof p, "%s%s/libcudnn.so.9", dir, subdirs[i]);
        size_t n = strlen(p) - strlen("/libcudnn.so.9");
        if (n < size && access(p, R_OK) == 0 && scan_file(p) == KIND_FREEDNN) {
            memcpy(out, p, n);
            out[n] = '\0';
            return 1;
        }
    }
    return 0;
}

static int lookup_file(const file_t *files, int nfiles, const hit_t *h)
{
    for (int i = 0; i < nfiles; i++)
        if (files[i].dev == h->dev && files[i].ino == h->ino)
            return i;
    return -1;
}

static const char *describe_path(const char *path, char *buf, size_t size)
{
    char real[4096];
    if (realpath(path, real) != NULL && strcmp(real, path) != 0)
        snprintf(buf, size, "%s -> %s", path, real);
    else
        snprintf(buf, size, "%s", path);
    return buf;
}

void dr_check_libcudnn(dr_ctx_t *ctx, dr_check_t *c)
{
    (void)ctx;
    cache_t cache = {0};
    read_cache(&cache);

    const char *llp = getenv("LD_LIBRARY_PATH");
    dr_buf_t order = {0};
    if (llp != NULL && *llp)
        dr_buf_printf(&order, "LD_LIBRARY_PATH=%s", llp);
    else
        dr_buf_printf(&order, "LD_LIBRARY_PATH (unset)");
    if (cache.ran)
        dr_buf_printf(&order, ", then /etc/ld.so.cache (%s -p: %d entries)", cache.ldconfig,
                      cache.total);
    else
        dr_buf_printf(&order, ", then /etc/ld.so.cache (not read: no ldconfig found)");
    dr_buf_printf(&order, ", then the default directories");
    dr_note(c, "search order: %s", order.s);
    dr_buf_free(&order);

    int nfiles = 0, found_names = 0, resolved_file[NNAMES], shadowed_names = 0;
    const char *resolved = NULL; /* the file the first name found resolves to */
    hits_t *all = calloc(NNAMES, sizeof *all);
    file_t *files = calloc(NNAMES * MAX_HITS, sizeof *files);
    if (all == NULL || files == NULL) {
        dr_set(c, DR_FAIL, "out of memory");
        free(all), free(files), free(cache.e);
        return;
    }
    dr_buf_t js = {0};
    dr_buf_printf(&js, "[");
    for (size_t k = 0; k < NNAMES; k++) {
        hits_t *h = &all[k];
        char p[8192];
        if (llp != NULL && *llp) {
            char *copy = strdup(llp);
            /* An empty element means the current directory, as for ld.so. */
            for (char *s = copy; s != NULL;) {
                char *sep = strpbrk(s, ":;");
                if (sep)
                    *sep = '\0';
                snprintf(p, sizeof p, "%s/%s", *s ? s : ".", names[k]);
                add_hit(h, p, "LD_LIBRARY_PATH");
                s = sep ? sep + 1 : NULL;
            }
            free(copy);
        }
        for (int i = 0; i < cache.n; i++)
            if (strcmp(cache.e[i].name, names[k]) == 0) {
                add_hit(h, cache.e[i].path, "ld.so.cache");
                break; /* ld.so takes the first matching cache entry */
            }
        for (size_t i = 0; i < sizeof default_dirs / sizeof default_dirs[0]; i++) {
            snprintf(p, sizeof p, "%s/%s", default_dirs[i], names[k]);
            add_hit(h, p, "default dir");
        }
        resolved_file[k] = -1;
        dr_buf_printf(&js, "%s{\"name\":\"%s\",\"resolves_to\":", k ? "," : "", names[k]);
        if (h->n == 0) {
            dr_note(c, "%-14s not found", names[k]);
            dr_buf_printf(&js, "null,\"via\":null,\"kind\":null,\"also_found\":[]}");
            continue;
        }
        found_names++;
        int shadow_here = 0;
        for (int i = 0; i < h->n; i++) {
            int f = lookup_file(files, nfiles, &h->hits[i]);
            if (f < 0) {
                f = nfiles++;
                files[f].dev = h->hits[i].dev;
                files[f].ino = h->hits[i].ino;
                files[f].kind = scan_file(h->hits[i].path);
                snprintf(files[f].path, sizeof files[f].path, "%s", h->hits[i].path);
            }
            char d[8400];
            describe_path(h->hits[i].path, d, sizeof d);
            int same = h->hits[i].dev == h->hits[0].dev && h->hits[i].ino == h->hits[0].ino;
            if (i == 0) {
                resolved_file[k] = f;
                if (resolved == NULL)
                    resolved = files[f].path;
                dr_note(c, "%-14s %s (%s): %s", names[k], d, h->hits[i].via,
                        kind_text[files[f].kind]);
                dr_buf_json_str(&js, h->hits[i].path);
                dr_buf_printf(&js, ",\"via\":\"%s\",\"kind\":\"%s\",\"also_found\":[",
                              h->hits[i].via, kind_json[files[f].kind]);
            } else {
                shadow_here += !same;
                if (!same) /* the same file by another path (/lib -> usr/lib) is only in the JSON */
                    dr_note(c, "%-14s   also %s (%s): %s, SHADOWED by the first", "", d,
                            h->hits[i].via, kind_text[files[f].kind]);
                dr_buf_printf(&js, "%s{\"path\":", i > 1 ? "," : "");
                dr_buf_json_str(&js, h->hits[i].path);
                dr_buf_printf(&js, ",\"via\":\"%s\",\"kind\":\"%s\",\"same_file\":%s}",
                              h->hits[i].via, kind_json[files[f].kind], same ? "true" : "false");
            }
        }
        dr_buf_printf(&js, "]}");
        shadowed_names += shadow_here > 0;
    }
    dr_buf_printf(&js, "]");
    dr_fact_raw(c, "names", js.s);
    dr_buf_free(&js);
    dr_fact_int(c, "distinct_files", nfiles);

    /* Files in ld.so.conf directories that the cache does not list: ldconfig was not re-run. */
    dr_buf_t dirs = {0}, stale = {0};
    read_conf("/etc/ld.so.conf", &dirs, 0);
    for (char *d = dirs.s; cache.ran && d != NULL && *d;) {
        char *nl = strchr(d, '\n');
        *nl = '\0';
        for (size_t k = 0; k < NNAMES; k++) {
            char p[8192];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s", d, names[k]);
            if (stat(p, &st) != 0)
                continue;
            int listed = 0;
            for (int i = 0; i < cache.n && !listed; i++)
                listed = strcmp(cache.e[i].name, names[k]) == 0;
            if (!listed)
                dr_buf_printf(&stale, "%s%s", stale.len ? ", " : "", p);
        }
        d = nl + 1;
    }
    dr_buf_free(&dirs);

    const char *preload = getenv("LD_PRELOAD");
    int preload_cudnn = preload != NULL && strstr(preload, "cudnn") != NULL;
    if (preload != NULL && *preload)
        dr_note(c, "LD_PRELOAD=%s (loaded into every program before any of the above)", preload);
    dr_note(c, "a program's own RPATH/RUNPATH comes first and is not known here: `ldd PROGRAM` "
               "shows what one binary gets");

    /* The libraries programs actually get, one per name found; several = mixed personalities. */
    int resolved_distinct = 0, first_file = -1;
    for (size_t k = 0; k < NNAMES; k++) {
        if (resolved_file[k] < 0)
            continue;
        int seen = 0;
        for (size_t j = 0; j < k; j++)
            seen |= resolved_file[j] == resolved_file[k];
        resolved_distinct += !seen;
        if (first_file < 0)
            first_file = resolved_file[k];
    }
    int ours_resolved = resolved_distinct == 1 && files[first_file].kind == KIND_FREEDNN;

    char ours_dir[4096];
    int have_ours = freednn_names_dir(ours_dir, sizeof ours_dir);
    dr_buf_t how = {0};
    if (have_ours)
        dr_buf_printf(
            &how,
            "to make cuDNN programs load freednn: export LD_LIBRARY_PATH=%s"
            "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} (it holds freednn's libcudnn.so.7/.9/.so)",
            ours_dir);
    else
        dr_buf_printf(
            &how,
            "this libfreednn (%s) has no libcudnn.so.7/.9/.so names beside it: installing "
            "freednn (cmake --install BUILD --prefix PREFIX) creates them next to the "
            "installed library; a freednn without that install step provides none, so "
            "link programs against libfreednn (-lfreednn) directly",
            ours_dir[0] ? ours_dir : "location unknown");

    if (preload_cudnn) {
        dr_set(c, DR_WARN,
               "LD_PRELOAD names a cuDNN library: every program gets that one, whatever "
               "it links");
        dr_fix(c, "unset LD_PRELOAD unless forcing that library is intended");
    } else if (resolved_distinct > 1 || (shadowed_names > 0 && !ours_resolved)) {
        dr_set(c, DR_WARN,
               "%d different libcudnn files are visible on the search path: one shadows "
               "another, and which one a program gets depends on %s",
               nfiles, resolved_distinct > 1 ? "the name it asks for" : "the search order");
        dr_fix(c,
               "keep one cuDNN on the search path: drop the other directory from LD_LIBRARY_PATH "
               "(or from /etc/ld.so.conf.d, then run ldconfig)%s%s%s",
               have_ours ? ", or put freednn's directory " : "", have_ours ? ours_dir : "",
               have_ours ? " first on LD_LIBRARY_PATH" : "");
    } else if (stale.len) {
        dr_set(c, DR_WARN, "%s: in an ld.so.conf directory but missing from /etc/ld.so.cache",
               stale.s);
        dr_fix(c, "run `sudo ldconfig` to refresh the cache after installing libraries");
    } else if (found_names == 0) {
        dr_set(c, DR_NA,
               "no libcudnn.so* on the search path: a program linked against cuDNN cannot "
               "start here (programs linked against libfreednn are unaffected)");
        dr_fix(c, "%s", how.s);
    } else if (ours_resolved) {
        dr_set(c, DR_PASS, "cuDNN programs here load freednn (%s)%s", resolved,
               shadowed_names ? ", in front of another libcudnn it shadows (as intended)" : "");
    } else {
        dr_set(c, DR_NA, "cuDNN programs here load %s (%s), not freednn",
               files[first_file].kind == KIND_NVIDIA ? "NVIDIA's cuDNN"
                                                     : "a file that is not freednn",
               resolved);
        dr_fix(c, "%s", how.s);
    }
    dr_buf_free(&how);
    dr_buf_free(&stale);
    free(files);
    free(all);
    free(cache.e);
}
