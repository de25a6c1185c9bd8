/* SPDX-License-Identifier: MIT */
/*
 * statusvs.c - bad-input agreement between cuDNN-API libraries (issue 6 item 4,
 * docs/status-codes.md).
 *
 *   statusvs [--device] [--check] LIB            one column: case  status  category
 *   statusvs [--device] --vs LIB2 LIB            two columns and agree / DIFFER, then a summary
 *
 * Each case (cases.c) gives one bad input to one call - a NULL, a zero or negative size, a
 * shape or type mismatch, an invalid enum, a short workspace - on otherwise valid descriptors
 * and real buffers (host memory, or device memory through a dlopen'd libcudart with --device),
 * and records the status's category: success, BAD_PARAM (2000 and the BAD_PARAM_* sub-codes),
 * NOT_SUPPORTED (3000..), or other-error. Libraries agree on a case when the categories match.
 * --check compares the first library's categories with the table's expectation for freednn
 * and exits 1 on a mismatch (the ctest). A library whose cudnnCreate fails (NVIDIA's without a
 * GPU) is reported and its handle-needing cases are skipped.
 *
 * Loading: a library whose file name starts with "libcudnn" goes into the main namespace with
 * RTLD_DEEPBIND (it must share libcuda with the CUDA runtime the buffers come from); any other
 * (a libfreednn) with plain dlopen for the first and dlmopen(LM_ID_NEWLM) for the second, so two
 * copies of the same file stay apart. Neither is linked: our cudnn.h only gives the prototypes.
 * A case that crashes a library (cuDNN 9.19 dereferences some NULL arrays) is caught with
 * SIGSEGV/SIGBUS + siglongjmp and reported as "CRASH"; the rest of the run goes on.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statusvs.h"

/* ---- categories ------------------------------------------------------------------------- */

const char *sv_cat_name(sv_cat_t c)
{
    static const char *const names[SV_CAT_COUNT] = {"success", "BAD_PARAM", "NOT_SUPPORTED",
                                                    "other-error", "skip", "crash",
                                                    "setup-failed"};
    return (unsigned)c < SV_CAT_COUNT ? names[c] : "?";
}

/* cuDNN 9 numbers statuses by category (code / 1000); cuDNN 7 and 8 use 0..14. */
static sv_cat_t categorise(const sv_lib_t *lib, cudnnStatus_t st)
{
    int s = (int)st;
    if (s == 0)
        return SV_SUCCESS;
    if (lib->version < 9000)
        return s == 3 ? SV_BAD : s == 9 ? SV_NOTSUP : SV_OTHER;
    if (s >= 2000 && s < 3000)
        return SV_BAD;
    if (s >= 3000 && s < 4000)
        return SV_NOTSUP;
    return SV_OTHER;
}

/* ---- libraries --------------------------------------------------------------------------- */

static int is_nvidia_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libcudnn", 8) == 0;
}

static sv_lib_t *load_lib(const char *path, int second)
{
    sv_lib_t *lib = calloc(1, sizeof *lib);
    if (lib == NULL)
        return NULL;
    lib->path = path;
    if (is_nvidia_name(path))
        lib->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    else if (second)
        lib->dl = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    else
        lib->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib->dl == NULL) {
        fprintf(stderr, "statusvs: cannot load %s: %s\n", path, dlerror());
        free(lib);
        return NULL;
    }
    /* A function a library lacks stays NULL; the cases using it report other-error. */
#define SV_SYM(f)                                                                              \
    {                                                                                          \
        void *s = dlsym(lib->dl, #f);                                                          \
        memcpy(&lib->f, &s, sizeof lib->f);                                                    \
    }
    SV_FUNCS(SV_SYM)
#undef SV_SYM
    if (lib->cudnnGetVersion == NULL || lib->cudnnGetErrorString == NULL) {
        fprintf(stderr, "statusvs: %s is not a cuDNN-API library (no cudnnGetVersion)\n", path);
        free(lib);
        return NULL;
    }
    lib->version = lib->cudnnGetVersion();
    lib->create_status = lib->cudnnCreate != NULL ? lib->cudnnCreate(&lib->handle)
                                                  : CUDNN_STATUS_NOT_SUPPORTED;
    if (lib->create_status != CUDNN_STATUS_SUCCESS) {
        lib->handle = NULL;
        char why[512] = "";
        if (lib->cudnnGetLastErrorString != NULL)
            lib->cudnnGetLastErrorString(why, sizeof why);
        fprintf(stderr,
                "statusvs: %s: cudnnCreate failed with %s%s%s; cases that need a handle are "
                "skipped\n",
                path, lib->cudnnGetErrorString(lib->create_status), why[0] ? ": " : "", why);
    }
    return lib;
}

/* ---- buffers ----------------------------------------------------------------------------- */

typedef int (*cuda_malloc_fn)(void **, size_t);
typedef int (*cuda_free_fn)(void *);
typedef int (*cuda_memset_fn)(void *, int, size_t);

static struct {
    cuda_malloc_fn malloc_;
    cuda_free_fn free_;
    cuda_memset_fn memset_;
} cu;

static int cuda_load(void)
{
    static const char *const names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
    void *dl = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && dl == NULL; i++)
        dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
        fprintf(stderr, "statusvs: --device needs the CUDA runtime (libcudart.so.13/.12): %s\n",
                dlerror());
        return -1;
    }
    void *m = dlsym(dl, "cudaMalloc"), *f = dlsym(dl, "cudaFree"), *s = dlsym(dl, "cudaMemset");
    if (m == NULL || f == NULL || s == NULL) {
        fprintf(stderr, "statusvs: libcudart lacks cudaMalloc/cudaFree/cudaMemset\n");
        return -1;
    }
    memcpy(&cu.malloc_, &m, sizeof m);
    memcpy(&cu.free_, &f, sizeof f);
    memcpy(&cu.memset_, &s, sizeof s);
    return 0;
}

static int alloc_buffers(sv_buffers_t *b, int device)
{
    b->device = device;
    for (int i = 0; i < SV_NBUF; i++) {
        size_t size = i == SV_BUF_STATES ? SV_STATES_BYTES : SV_BUF_BYTES;
        if (device) {
            int err = cu.malloc_(&b->p[i], size);
            if (err != 0 || cu.memset_(b->p[i], 0, size) != 0) {
                fprintf(stderr, "statusvs: cudaMalloc of %zu bytes failed (error %d)\n", size, err);
                return -1;
            }
        } else {
            b->p[i] = calloc(1, size);
            if (b->p[i] == NULL) {
                fprintf(stderr, "statusvs: cannot allocate %zu bytes\n", size);
                return -1;
            }
        }
    }
    return 0;
}

static void free_buffers(sv_buffers_t *b)
{
    for (int i = 0; i < SV_NBUF; i++) {
        if (b->p[i] != NULL) {
            if (b->device)
                cu.free_(b->p[i]);
            else
                free(b->p[i]);
        }
        b->p[i] = NULL;
    }
}

/* ---- running one case -------------------------------------------------------------------- */

static sigjmp_buf crash_jump;
static volatile sig_atomic_t crash_signal;

static void on_crash(int sig)
{
    crash_signal = sig;
    siglongjmp(crash_jump, 1);
}

typedef struct {
    sv_cat_t cat;
    char status[64];
} sv_result_t;

static sv_result_t run_case(const sv_case_t *k, sv_lib_t *lib, sv_buffers_t *bufs)
{
    sv_result_t r = {SV_SKIP, "-"};
    if (k->needs_handle && lib->handle == NULL) {
        snprintf(r.status, sizeof r.status, "(no handle)");
        return r;
    }
    sv_ctx_t c;
    memset(&c, 0, sizeof c);
    c.L = lib;
    c.h = lib->handle;
    c.b = bufs;
    struct sigaction sa, old_segv, old_bus;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    if (sigsetjmp(crash_jump, 1) == 0) {
        const char *setup_failed = sv_setup(&c);
        if (setup_failed != NULL) {
            r.cat = SV_SETUP;
            snprintf(r.status, sizeof r.status, "%.60s", setup_failed);
        } else {
            cudnnStatus_t st = k->fn(&c);
            if ((int)st == SV_STATUS_SETUP) {
                r.cat = SV_SETUP;
                snprintf(r.status, sizeof r.status, "%.60s", c.setup_failed ? c.setup_failed : "?");
            } else if ((int)st == SV_STATUS_MISSING) {
                r.cat = SV_OTHER;
                snprintf(r.status, sizeof r.status, "(function missing)");
            } else {
                r.cat = categorise(lib, st);
                const char *name = lib->cudnnGetErrorString(st);
                snprintf(r.status, sizeof r.status, "%.60s", name != NULL ? name : "?");
            }
        }
    } else {
        r.cat = SV_CRASH;
        snprintf(r.status, sizeof r.status, "CRASH(%s)", crash_signal == SIGBUS ? "SIGBUS" : "SIGSEGV");
    }
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    sv_teardown(&c);
    return r;
}

/* ---- main -------------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: statusvs [--device] [--check] [--list] LIB\n"
                    "       statusvs [--device] --vs LIB2 LIB\n"
                    "  LIB, LIB2   cuDNN-API libraries (libfreednn.so, libcudnn.so.9) loaded by path\n"
                    "  --device    buffers in device memory (cudaMalloc); default host memory, and\n"
                    "              FREEDNN_BACKEND=cpu unless it is set\n"
                    "  --check     compare LIB's categories with the table's freednn expectation\n"
                    "  --list      print the cases and their expected freednn categories\n");
    return 2;
}

int main(int argc, char **argv)
{
    int device = 0, check = 0, list = 0;
    const char *vs = NULL, *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0)
            device = 1;
        else if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else if (strcmp(argv[i], "--list") == 0)
            list = 1;
        else if (strcmp(argv[i], "--vs") == 0 && i + 1 < argc)
            vs = argv[++i];
        else if (argv[i][0] == '-' || path != NULL)
            return usage();
        else
            path = argv[i];
    }
    int n = 0;
    const sv_case_t *cases = sv_cases(&n);
    if (list) {
        for (int i = 0; i < n; i++)
            printf("%-44s %s%s\n", cases[i].id, sv_cat_name(cases[i].expect),
                   cases[i].needs_handle ? "  (needs a handle)" : "");
        printf("%d cases\n", n);
        return 0;
    }
    if (path == NULL)
        return usage();
    if (!device)
        setenv("FREEDNN_BACKEND", "cpu", 0); /* host buffers: a freednn handle must be cpu */
    if (device && cuda_load() != 0)
        return 1;
    sv_buffers_t bufs;
    memset(&bufs, 0, sizeof bufs);
    if (alloc_buffers(&bufs, device) != 0)
        return 1;
    sv_lib_t *a = load_lib(path, 0);
    sv_lib_t *b = vs != NULL ? load_lib(vs, 1) : NULL;
    if (a == NULL || (vs != NULL && b == NULL))
        return 1;
    printf("# %s: version %zu%s\n", a->path, a->version, a->handle ? "" : ", no handle");
    if (b != NULL)
        printf("# %s: version %zu%s\n", b->path, b->version, b->handle ? "" : ", no handle");
    printf("# buffers in %s memory\n", device ? "device" : "host");

    int agree = 0, differ = 0, skipped = 0, unexpected = 0;
    for (int i = 0; i < n; i++) {
        const sv_case_t *k = &cases[i];
        sv_result_t ra = run_case(k, a, &bufs);
        if (b == NULL) {
            const char *verdict = "";
            if (check && ra.cat != SV_SKIP && ra.cat != k->expect) {
                verdict = "  UNEXPECTED";
                unexpected++;
            }
            if (ra.cat == SV_SKIP)
                skipped++;
            printf("%-44s %-44s %s%s%s%s\n", k->id, ra.status, sv_cat_name(ra.cat), verdict,
                   *verdict ? ", expected " : "", *verdict ? sv_cat_name(k->expect) : "");
            continue;
        }
        sv_result_t rb = run_case(k, b, &bufs);
        const char *verdict;
        if (ra.cat == SV_SKIP || rb.cat == SV_SKIP || ra.cat == SV_SETUP || rb.cat == SV_SETUP) {
            verdict = "skip";
            skipped++;
        } else if (ra.cat == rb.cat) {
            verdict = "agree";
            agree++;
        } else {
            verdict = "DIFFER";
            differ++;
        }
        printf("%-44s %-40s %-13s %-40s %-13s %s\n", k->id, ra.status, sv_cat_name(ra.cat),
               rb.status, sv_cat_name(rb.cat), verdict);
    }
    if (b != NULL)
        printf("%d cases, %d agree, %d differ, %d skipped\n", n, agree, differ, skipped);
    else if (check)
        printf("%d cases, %d as expected, %d unexpected, %d skipped\n", n,
               n - unexpected - skipped, unexpected, skipped);
    else
        printf("%d cases, %d skipped\n", n, skipped);
    if (a->handle != NULL)
        a->cudnnDestroy(a->handle);
    if (b != NULL && b->handle != NULL)
        b->cudnnDestroy(b->handle);
    free_buffers(&bufs);
    /* The libraries stay loaded: unloading NVIDIA's from a DEEPBIND namespace is not worth it;
     * their tables go (LeakSanitizer counts them otherwise). */
    free(a);
    free(b);
    return unexpected != 0 ? 1 : 0;
}
