/* SPDX-License-Identifier: MIT */
/*
 * test_handle.c - the handle family: versions, error strings, the thread-local last error,
 * backend choice (FREEDNN_BACKEND, freednnCreateWithBackend), streams, cudnnQueryRuntimeError
 * and the logging callback (contract §1.1, §1.3, §1.9, §1.10; DESIGN D3, D10).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd_test.h"

/* A call that is always rejected, with "stride" in its reason. */
static cudnnStatus_t provoke_bad_stride(void)
{
    cudnnConvolutionDescriptor_t c = NULL;
    cudnnCreateConvolutionDescriptor(&c);
    cudnnStatus_t st = cudnnSetConvolution2dDescriptor(c, 0, 0, 0, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                       CUDNN_DATA_FLOAT);
    cudnnDestroyConvolutionDescriptor(c);
    return st;
}

static void last_error(char *buf, size_t size)
{
    cudnnGetLastErrorString(buf, size);
}

/* ---- versions --------------------------------------------------------------------------- */

static void test_versions(void)
{
    FD_EXPECT(cudnnGetVersion() == CUDNN_VERSION, "cudnnGetVersion %zu, CUDNN_VERSION %d",
              cudnnGetVersion(), CUDNN_VERSION);
    FD_EXPECT(freednnGetVersion() == FREEDNN_VERSION, "freednnGetVersion %zu, FREEDNN_VERSION %d",
              freednnGetVersion(), FREEDNN_VERSION);
    FD_EXPECT(cudnnGetMaxDeviceVersion() == CUDNN_MAX_DEVICE_VERSION,
              "cudnnGetMaxDeviceVersion %zu", cudnnGetMaxDeviceVersion());
    int major = -1, minor = -1, patch = -1;
    FD_EXPECT_STATUS(cudnnGetProperty(MAJOR_VERSION, &major), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetProperty(MINOR_VERSION, &minor), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetProperty(PATCH_LEVEL, &patch), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(major == CUDNN_MAJOR && minor == CUDNN_MINOR && patch == CUDNN_PATCHLEVEL,
              "GetProperty gives %d.%d.%d, header %d.%d.%d", major, minor, patch, CUDNN_MAJOR,
              CUDNN_MINOR, CUDNN_PATCHLEVEL);
    FD_EXPECT((size_t)(major * 10000 + minor * 100 + patch) == cudnnGetVersion(),
              "GetProperty %d.%d.%d is not cudnnGetVersion %zu", major, minor, patch,
              cudnnGetVersion());
    FD_EXPECT(CUDNN_VERSION == 91900, "the interface served is cuDNN 9.19.0 (CUDNN_VERSION %d)",
              CUDNN_VERSION);
    /* A build without CUDA reports runtime 0; with CUDA, a CUDART_VERSION (>= 11000). */
    size_t rt = cudnnGetCudartVersion();
    FD_EXPECT(rt == 0 || rt >= 11000, "cudnnGetCudartVersion %zu", rt);
    FD_EXPECT_STATUS(cudnnGraphVersionCheck(), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnOpsVersionCheck(), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCnnVersionCheck(), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnAdvVersionCheck(), CUDNN_STATUS_SUCCESS);
}

/* ---- error strings ---------------------------------------------------------------------- */

#define NAMED(s)                                                                                   \
    {                                                                                              \
        s, #s                                                                                      \
    }
static const struct {
    cudnnStatus_t status;
    const char *name;
} status_names[] = {
    NAMED(CUDNN_STATUS_SUCCESS),
    NAMED(CUDNN_STATUS_NOT_INITIALIZED),
    NAMED(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH),
    NAMED(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH),
    NAMED(CUDNN_STATUS_DEPRECATED),
    NAMED(CUDNN_STATUS_LICENSE_ERROR),
    NAMED(CUDNN_STATUS_RUNTIME_IN_PROGRESS),
    NAMED(CUDNN_STATUS_RUNTIME_FP_OVERFLOW),
    NAMED(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED),
    NAMED(CUDNN_STATUS_BAD_PARAM),
    NAMED(CUDNN_STATUS_BAD_PARAM_NULL_POINTER),
    NAMED(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER),
    NAMED(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED),
    NAMED(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND),
    NAMED(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT),
    NAMED(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH),
    NAMED(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH),
    NAMED(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES),
    NAMED(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE),
    NAMED(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH),
    NAMED(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_SHAPE),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_PADDING),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API),
    NAMED(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE),
    NAMED(CUDNN_STATUS_INTERNAL_ERROR),
    NAMED(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED),
    NAMED(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE),
    NAMED(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED),
    NAMED(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED),
    NAMED(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM),
    NAMED(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED),
    NAMED(CUDNN_STATUS_EXECUTION_FAILED),
    NAMED(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER),
    NAMED(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS),
    NAMED(CUDNN_STATUS_EXECUTION_FAILED_CUDART),
    NAMED(CUDNN_STATUS_EXECUTION_FAILED_CURAND),
    /* the one pre-9 name with a value of its own */
    NAMED(CUDNN_STATUS_INVALID_VALUE),
};

/* Pre-9 names that are aliases: the string is the cuDNN 9 enumerator of the same value. */
static const struct {
    cudnnStatus_t alias;
    const char *name;
} status_aliases[] = {
    {CUDNN_STATUS_ALLOC_FAILED, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED"},
    {CUDNN_STATUS_ARCH_MISMATCH, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH"},
    {CUDNN_STATUS_MAPPING_ERROR, "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED"},
    {CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING,
     "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING"},
    {CUDNN_STATUS_VERSION_MISMATCH, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"},
};

static void test_error_strings(void)
{
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++) {
        const char *s = cudnnGetErrorString(status_names[i].status);
        FD_EXPECT(s != NULL && strcmp(s, status_names[i].name) == 0,
                  "cudnnGetErrorString(%d) = \"%s\", want \"%s\"", (int)status_names[i].status,
                  s ? s : "(null)", status_names[i].name);
    }
    for (size_t i = 0; i < sizeof status_aliases / sizeof status_aliases[0]; i++) {
        const char *s = cudnnGetErrorString(status_aliases[i].alias);
        FD_EXPECT(s != NULL && strcmp(s, status_aliases[i].name) == 0,
                  "alias %d: \"%s\", want \"%s\"", (int)status_aliases[i].alias, s ? s : "(null)",
                  status_aliases[i].name);
    }
    /* unknown sub-codes of a known category name the category */
    static const struct {
        int code;
        const char *category;
    } sub[] = {{2013, "CUDNN_STATUS_BAD_PARAM"},
               {2999, "CUDNN_STATUS_BAD_PARAM"},
               {3015, "CUDNN_STATUS_NOT_SUPPORTED"},
               {4999, "CUDNN_STATUS_INTERNAL_ERROR"},
               {5005, "CUDNN_STATUS_EXECUTION_FAILED"}};
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        const char *s = cudnnGetErrorString((cudnnStatus_t)sub[i].code);
        FD_EXPECT(s != NULL && strcmp(s, sub[i].category) == 0,
                  "cudnnGetErrorString(%d) = \"%s\", want \"%s\"", sub[i].code, s ? s : "(null)",
                  sub[i].category);
    }
    /* codes outside every category: some non-empty text, never a real status name */
    static const int unknown[] = {1, 14, 999, 1000, 1009, 6000, 12345, -1, -2000, 0x7fffffff};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = cudnnGetErrorString((cudnnStatus_t)unknown[i]);
        FD_EXPECT(s != NULL && s[0] != '\0', "cudnnGetErrorString(%d) is empty", unknown[i]);
        for (size_t j = 0; s != NULL && j < sizeof status_names / sizeof status_names[0]; j++)
            FD_EXPECT(strcmp(s, status_names[j].name) != 0, "cudnnGetErrorString(%d) = \"%s\"",
                      unknown[i], s);
    }
}

/* ---- the last error: truncation, termination, per thread -------------------------------- */

static void test_last_error_truncation(void)
{
    FD_EXPECT_STATUS(provoke_bad_stride(), CUDNN_STATUS_BAD_PARAM);
    char full[1024];
    last_error(full, sizeof full);
    size_t len = strlen(full);
    FD_EXPECT(len > 10 && strstr(full, "stride") != NULL,
              "last error \"%s\" does not name the stride", full);
    FD_EXPECT(strstr(full, "cudnnSetConvolution2dDescriptor") != NULL,
              "last error \"%s\" does not name the function", full);
    for (size_t max = 1; max <= len + 2; max++) {
        char buf[1100];
        memset(buf, 'Z', sizeof buf);
        cudnnGetLastErrorString(buf, max);
        size_t want = max - 1 < len ? max - 1 : len;
        FD_EXPECT(memcmp(buf, full, want) == 0 && buf[want] == '\0',
                  "max_size %zu: not the NUL-terminated prefix", max);
        for (size_t i = want + 1; i < sizeof buf; i++)
            if (buf[i] != 'Z') {
                FD_EXPECT(0, "max_size %zu: byte %zu written", max, i);
                break;
            }
    }
    char untouched[8];
    memset(untouched, 'Z', sizeof untouched);
    cudnnGetLastErrorString(untouched, 0);
    FD_EXPECT(untouched[0] == 'Z', "max_size 0 wrote a byte");
    cudnnGetLastErrorString(NULL, 16); /* must not crash */
    /* a successful call does not invent an error */
    cudnnHandle_t h = NULL;
    FD_EXPECT_STATUS(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroy(h), CUDNN_STATUS_SUCCESS);
    char after[1024];
    last_error(after, sizeof after);
    FD_EXPECT(after[0] == '\0' || strcmp(after, full) == 0,
              "a successful call changed the last error to \"%s\"", after);
}

typedef struct {
    char seen_at_start[1024]; /* last error of a fresh thread */
    char own[1024];           /* after its own rejection */
} thread_report_t;

static void *thread_b(void *arg)
{
    thread_report_t *r = arg;
    last_error(r->seen_at_start, sizeof r->seen_at_start);
    int value = 0;
    cudnnGetProperty((libraryPropertyType)77, &value); /* rejected: "type 77" */
    last_error(r->own, sizeof r->own);
    return NULL;
}

static void test_last_error_per_thread(void)
{
    FD_EXPECT_STATUS(provoke_bad_stride(), CUDNN_STATUS_BAD_PARAM);
    char mine[1024];
    last_error(mine, sizeof mine);
    thread_report_t r;
    memset(&r, 0, sizeof r);
    pthread_t t;
    FD_EXPECT(pthread_create(&t, NULL, thread_b, &r) == 0, "pthread_create");
    pthread_join(t, NULL);
    FD_EXPECT(r.seen_at_start[0] == '\0', "a fresh thread sees another thread's error: \"%s\"",
              r.seen_at_start);
    FD_EXPECT(strstr(r.own, "type 77") != NULL, "thread B's own error is \"%s\"", r.own);
    char again[1024];
    last_error(again, sizeof again);
    FD_EXPECT(strcmp(again, mine) == 0,
              "thread B's error leaked into thread A: \"%s\" (was \"%s\")", again, mine);
}

/* ---- backends --------------------------------------------------------------------------- */

static int cuda_can_run(void)
{
    cudnnHandle_t h = NULL;
    if (freednnCreateWithBackend(&h, FREEDNN_BACKEND_CUDA) != CUDNN_STATUS_SUCCESS)
        return 0;
    cudnnDestroy(h);
    return 1;
}

static void expect_env_backend(const char *value, cudnnStatus_t want, freednnBackend_t want_backend,
                               const char *reason_word)
{
    if (value != NULL)
        setenv("FREEDNN_BACKEND", value, 1);
    else
        unsetenv("FREEDNN_BACKEND");
    const char *shown = value ? value : "(unset)";
    for (int via = 0; via < 2; via++) { /* cudnnCreate, then freednnCreateWithBackend(DEFAULT) */
        cudnnHandle_t h = (cudnnHandle_t)(void *)&h; /* a pattern a failed create must not touch */
        cudnnHandle_t before = h;
        cudnnStatus_t st =
            via == 0 ? cudnnCreate(&h) : freednnCreateWithBackend(&h, FREEDNN_BACKEND_DEFAULT);
        FD_EXPECT(st == want, "FREEDNN_BACKEND=%s via %s: %s, want %s", shown,
                  via ? "CreateWithBackend" : "cudnnCreate", cudnnGetErrorString(st),
                  cudnnGetErrorString(want));
        if (st == CUDNN_STATUS_SUCCESS) {
            freednnBackend_t b = (freednnBackend_t)99;
            FD_EXPECT_STATUS(freednnGetBackend(h, &b), CUDNN_STATUS_SUCCESS);
            FD_EXPECT(b == want_backend, "FREEDNN_BACKEND=%s: backend %d (%s), want %d", shown,
                      (int)b, freednnGetBackendName(b) ? freednnGetBackendName(b) : "?",
                      (int)want_backend);
            FD_EXPECT_STATUS(cudnnDestroy(h), CUDNN_STATUS_SUCCESS);
        } else {
            char msg[1024];
            last_error(msg, sizeof msg);
            FD_EXPECT(h == before, "FREEDNN_BACKEND=%s: a failed create wrote the handle", shown);
            FD_EXPECT(reason_word == NULL || strstr(msg, reason_word) != NULL,
                      "FREEDNN_BACKEND=%s: reason \"%s\" does not mention \"%s\"", shown, msg,
                      reason_word);
        }
    }
}

static void test_backends(void)
{
    const char *saved = getenv("FREEDNN_BACKEND");
    char *saved_copy = saved ? strdup(saved) : NULL;
    int cuda = cuda_can_run();
    freednnBackend_t dflt = cuda ? FREEDNN_BACKEND_CUDA : FREEDNN_BACKEND_CPU;
    printf("cuda backend %s on this machine\n", cuda ? "available" : "not available");

    expect_env_backend("ref", CUDNN_STATUS_SUCCESS, FREEDNN_BACKEND_REF, NULL);
    expect_env_backend("cpu", CUDNN_STATUS_SUCCESS, FREEDNN_BACKEND_CPU, NULL);
    if (cuda)
        expect_env_backend("cuda", CUDNN_STATUS_SUCCESS, FREEDNN_BACKEND_CUDA, NULL);
    else
        expect_env_backend("cuda", CUDNN_STATUS_NOT_INITIALIZED, FREEDNN_BACKEND_CUDA, "cuda");
    expect_env_backend("bogus", CUDNN_STATUS_BAD_PARAM, FREEDNN_BACKEND_CPU, "FREEDNN_BACKEND");
    expect_env_backend("CPU", CUDNN_STATUS_BAD_PARAM, FREEDNN_BACKEND_CPU, "FREEDNN_BACKEND");
    expect_env_backend("", CUDNN_STATUS_SUCCESS, dflt, NULL);
    expect_env_backend(NULL, CUDNN_STATUS_SUCCESS, dflt, NULL);

    /* explicit backends ignore the environment */
    setenv("FREEDNN_BACKEND", "bogus", 1);
    static const freednnBackend_t explicit_ok[] = {FREEDNN_BACKEND_REF, FREEDNN_BACKEND_CPU};
    for (size_t i = 0; i < 2; i++) {
        cudnnHandle_t h = NULL;
        freednnBackend_t b = (freednnBackend_t)99;
        FD_EXPECT_STATUS(freednnCreateWithBackend(&h, explicit_ok[i]), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(freednnGetBackend(h, &b), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(b == explicit_ok[i], "CreateWithBackend(%d) gave %d", (int)explicit_ok[i],
                  (int)b);
        cudnnDestroy(h);
    }
    if (saved_copy != NULL)
        setenv("FREEDNN_BACKEND", saved_copy, 1);
    else
        unsetenv("FREEDNN_BACKEND");
    free(saved_copy);

    static const struct {
        int b;
        const char *name;
    } names[] = {{0, "ref"}, {1, "cpu"}, {2, "cuda"}, {3, NULL},
                 {-1, NULL}, {-2, NULL}, {1000, NULL}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *n = freednnGetBackendName((freednnBackend_t)names[i].b);
        FD_EXPECT(names[i].name ? (n && strcmp(n, names[i].name) == 0) : n == NULL,
                  "freednnGetBackendName(%d) = %s", names[i].b, n ? n : "NULL");
    }
}

/* ---- streams, runtime errors, many handles ---------------------------------------------- */

static void test_streams(void)
{
    cudnnHandle_t a = NULL, b = NULL;
    FD_EXPECT_STATUS(cudnnCreate(&a), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreate(&b), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(a != b, "two handles are the same object");
    cudaStream_t s = (cudaStream_t)(void *)&s;
    FD_EXPECT_STATUS(cudnnGetStream(a, &s), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(s == NULL, "a new handle's stream is %p, not the default (NULL)", (void *)s);
    cudaStream_t s1 = (cudaStream_t)(uintptr_t)0x1230, s2 = (cudaStream_t)(uintptr_t)0x4560;
    FD_EXPECT_STATUS(cudnnSetStream(a, s1), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetStream(b, s2), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetStream(a, &s), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(s == s1, "handle a: stream %p, set %p", (void *)s, (void *)s1);
    FD_EXPECT_STATUS(cudnnGetStream(b, &s), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(s == s2, "handle b: stream %p, set %p", (void *)s, (void *)s2);
    FD_EXPECT_STATUS(cudnnSetStream(a, NULL), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetStream(a, &s), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(s == NULL, "stream reset to NULL reads back %p", (void *)s);

    static const cudnnErrQueryMode_t modes[] = {CUDNN_ERRQUERY_RAWCODE, CUDNN_ERRQUERY_NONBLOCKING,
                                                CUDNN_ERRQUERY_BLOCKING};
    for (int i = 0; i < 3; i++) {
        cudnnStatus_t rs = (cudnnStatus_t)-1;
        FD_EXPECT_STATUS(cudnnQueryRuntimeError(a, &rs, modes[i], NULL), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(rs == CUDNN_STATUS_SUCCESS, "mode %d: rstatus %s after no work", (int)modes[i],
                  cudnnGetErrorString(rs));
    }
    FD_EXPECT_STATUS(cudnnDestroy(a), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroy(b), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroy(NULL), CUDNN_STATUS_SUCCESS);
}

static void *create_destroy_loop(void *arg)
{
    int *failures = arg;
    for (int i = 0; i < 200; i++) {
        cudnnHandle_t h = NULL;
        if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS ||
            cudnnSetStream(h, (cudaStream_t)(uintptr_t)(i + 1)) != CUDNN_STATUS_SUCCESS)
            (*failures)++;
        cudaStream_t s = NULL;
        if (cudnnGetStream(h, &s) != CUDNN_STATUS_SUCCESS || s != (cudaStream_t)(uintptr_t)(i + 1))
            (*failures)++;
        if (cudnnDestroy(h) != CUDNN_STATUS_SUCCESS)
            (*failures)++;
    }
    return NULL;
}

static void test_concurrent_handles(void)
{
    enum { THREADS = 8 };
    pthread_t t[THREADS];
    int failures[THREADS] = {0};
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, create_destroy_loop, &failures[i]);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        FD_EXPECT(failures[i] == 0, "thread %d: %d failed create/stream/destroy calls", i,
                  failures[i]);
    }
}

/* ---- callbacks -------------------------------------------------------------------------- */

typedef struct {
    int calls[4]; /* by severity */
    cudnnSeverity_t last_sev;
    void *last_udata;
    cudnnDebug_t last_error_dbg;
    char last_error_msg[1024];
    int errors_seen;
} cb_log_t;

static void record_cb(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    cb_log_t *log = udata;
    if ((int)sev >= 0 && (int)sev < 4)
        log->calls[sev]++;
    log->last_sev = sev;
    log->last_udata = udata;
    if (sev == CUDNN_SEV_ERROR) {
        log->errors_seen++;
        log->last_error_dbg = *dbg;
        snprintf(log->last_error_msg, sizeof log->last_error_msg, "%s", msg ? msg : "(null)");
    }
}

static void other_cb(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)udata, (void)dbg, (void)msg;
}

static void test_callbacks(void)
{
    unsigned mask0 = 0;
    void *udata0 = NULL;
    cudnnCallback_t fn0 = NULL;
    FD_EXPECT_STATUS(cudnnGetCallback(&mask0, &udata0, &fn0), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(fn0 == NULL, "a user callback is installed before any was set");

    /* errors only */
    cb_log_t log;
    memset(&log, 0, sizeof log);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &log, record_cb), CUDNN_STATUS_SUCCESS);
    unsigned m = 0;
    void *u = NULL;
    cudnnCallback_t fn = NULL;
    FD_EXPECT_STATUS(cudnnGetCallback(&m, &u, &fn), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(m == CUDNN_SEV_ERROR_EN && u == &log && fn == record_cb,
              "GetCallback: mask %#x udata %p fn %p", m, u, (void *)(uintptr_t)fn);
    FD_EXPECT_STATUS(provoke_bad_stride(), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(log.errors_seen == 1, "%d error records for one rejection", log.errors_seen);
    FD_EXPECT(log.calls[CUDNN_SEV_INFO] == 0 && log.calls[CUDNN_SEV_WARNING] == 0,
              "mask ERROR delivered %d info and %d warning records", log.calls[CUDNN_SEV_INFO],
              log.calls[CUDNN_SEV_WARNING]);
    FD_EXPECT(log.last_udata == &log, "udata %p, registered %p", log.last_udata, (void *)&log);
    const cudnnDebug_t *d = &log.last_error_dbg;
    FD_EXPECT(d->cudnn_version == CUDNN_VERSION, "dbg.cudnn_version %u", d->cudnn_version);
    FD_EXPECT(d->cudnnStatus == CUDNN_STATUS_BAD_PARAM, "dbg.cudnnStatus %d", (int)d->cudnnStatus);
    FD_EXPECT(d->pid == (unsigned long long)getpid(), "dbg.pid %llu, getpid %d", d->pid,
              (int)getpid());
    FD_EXPECT(d->tid == (unsigned long long)syscall(SYS_gettid), "dbg.tid %llu, gettid %ld", d->tid,
              (long)syscall(SYS_gettid));
    FD_EXPECT(d->time_sec > 1600000000u, "dbg.time_sec %u is not a current time", d->time_sec);
    FD_EXPECT(d->time_usec < 1000000u, "dbg.time_usec %u", d->time_usec);
    FD_EXPECT(strstr(log.last_error_msg, "CUDNN_STATUS_BAD_PARAM") != NULL &&
                  strstr(log.last_error_msg, "stride") != NULL,
              "error message \"%s\" lacks the status or the reason", log.last_error_msg);
    for (int i = 0; i < 15; i++)
        FD_EXPECT(d->reserved[i] == 0, "dbg.reserved[%d] = %d", i, d->reserved[i]);
    /* a successful call delivers nothing under mask ERROR */
    int before = log.calls[0] + log.calls[1] + log.calls[2] + log.calls[3];
    cudnnHandle_t h = NULL;
    FD_EXPECT_STATUS(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(log.calls[0] + log.calls[1] + log.calls[2] + log.calls[3] == before,
              "a successful call was delivered under mask ERROR");
    /* the handle of the failing call is reported */
    FD_EXPECT_STATUS(cudnnGetStream(h, NULL), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(log.last_error_dbg.handle == h, "dbg.handle %p, call made on %p",
              (void *)log.last_error_dbg.handle, (void *)h);

    /* warnings only: errors are filtered out */
    memset(&log, 0, sizeof log);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_WARNING_EN, &log, record_cb), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(provoke_bad_stride(), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(log.calls[CUDNN_SEV_ERROR] == 0 && log.calls[CUDNN_SEV_INFO] == 0,
              "mask WARNING delivered %d errors, %d infos", log.calls[CUDNN_SEV_ERROR],
              log.calls[CUDNN_SEV_INFO]);

    /* info: every API call is traced, errors are not delivered */
    memset(&log, 0, sizeof log);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_INFO_EN, &log, record_cb), CUDNN_STATUS_SUCCESS);
    cudaStream_t s = NULL;
    FD_EXPECT_STATUS(cudnnGetStream(h, &s), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(log.calls[CUDNN_SEV_INFO] >= 1, "mask INFO: a successful call was not traced");
    FD_EXPECT_STATUS(provoke_bad_stride(), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(log.calls[CUDNN_SEV_ERROR] == 0, "mask INFO delivered an error record");

    /* error | info: both */
    memset(&log, 0, sizeof log);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_ERROR_EN | CUDNN_SEV_INFO_EN, &log, record_cb),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(provoke_bad_stride(), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(log.calls[CUDNN_SEV_ERROR] == 1 && log.calls[CUDNN_SEV_INFO] >= 1,
              "mask ERROR|INFO: %d errors, %d infos", log.calls[CUDNN_SEV_ERROR],
              log.calls[CUDNN_SEV_INFO]);

    /* mask 0 with a callback: nothing delivered */
    FD_EXPECT_STATUS(cudnnSetCallback(0, &log, record_cb), CUDNN_STATUS_SUCCESS);
    memset(&log, 0, sizeof log); /* SetCallback's own trace went to the previous mask */
    FD_EXPECT_STATUS(provoke_bad_stride(), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(log.calls[0] + log.calls[1] + log.calls[2] + log.calls[3] == 0,
              "mask 0 delivered a record");

    /* replacing the callback: the old one gets nothing more */
    cb_log_t old;
    memset(&old, 0, sizeof old);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &old, record_cb), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_ERROR_EN, NULL, other_cb), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(provoke_bad_stride(), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(old.errors_seen == 0, "a replaced callback still receives records");

    /* resetting to NULL stops delivery and GetCallback says so */
    memset(&log, 0, sizeof log);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &log, record_cb), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetCallback(mask0, NULL, NULL), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(provoke_bad_stride(), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(log.errors_seen == 0, "a callback reset to NULL still receives records");
    FD_EXPECT_STATUS(cudnnGetCallback(&m, &u, &fn), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(fn == NULL && u == NULL && m == mask0, "after reset: mask %#x udata %p fn %p", m, u,
              (void *)(uintptr_t)fn);
    FD_EXPECT_STATUS(cudnnDestroy(h), CUDNN_STATUS_SUCCESS);
}

/* A record delivered for a rejection in another thread carries that thread's id. */
static void *reject_in_thread(void *arg)
{
    *(unsigned long long *)arg = (unsigned long long)syscall(SYS_gettid);
    provoke_bad_stride();
    return NULL;
}

static void test_callback_thread_id(void)
{
    cb_log_t log;
    memset(&log, 0, sizeof log);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &log, record_cb), CUDNN_STATUS_SUCCESS);
    unsigned long long tid = 0;
    pthread_t t;
    pthread_create(&t, NULL, reject_in_thread, &tid);
    pthread_join(t, NULL);
    FD_EXPECT(log.errors_seen == 1 && log.last_error_dbg.tid == tid &&
                  tid != (unsigned long long)syscall(SYS_gettid),
              "record from another thread: %d records, tid %llu, thread %llu", log.errors_seen,
              log.last_error_dbg.tid, tid);
    cudnnSetCallback(CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN | CUDNN_SEV_INFO_EN, NULL, NULL);
}

int main(void)
{
    test_versions();
    test_error_strings();
    test_last_error_truncation();
    test_last_error_per_thread();
    test_backends();
    test_streams();
    test_concurrent_handles();
    test_callbacks();
    test_callback_thread_id();
    return fd_test_finish();
}
