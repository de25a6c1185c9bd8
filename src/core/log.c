/* SPDX-License-Identifier: MIT */
/*
 * log.c - rejections, API logging and the user callback (DESIGN D10, contract §1.9).
 *
 * Environment, read once: CUDNN_LOGLEVEL_DBG (0..3, clipped), or the v7/v8 switches
 * CUDNN_LOGERR_DBG / CUDNN_LOGWARN_DBG / CUDNN_LOGINFO_DBG; CUDNN_LOGDEST_DBG = stdout,
 * stderr or a file name. Records use cuDNN's "E! CuDNN (v...) function X() called:" shape so
 * existing log parsers read them. cudnnSetCallback routes the same records to user code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fd.h"
#include "personality.h"

#define FD_LAST_ERROR_SIZE 1024

static _Thread_local char tls_last_error[FD_LAST_ERROR_SIZE];
static _Thread_local const char *tls_function = "(internal)";
static _Thread_local cudnnHandle_t tls_handle;

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int log_level_env;
static FILE *log_dest;
static struct timeval log_start;

static unsigned cb_mask = CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN | CUDNN_SEV_INFO_EN;
static void *cb_udata;
static cudnnCallback_t cb_fn;
static int cb_v7; /* registered through libcudnn.so.7: dbg in cuDNN 7 terms (personality.h) */

int fd_env_flag(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && atoi(v) != 0;
}

int fd_env_on(const char *name)
{
    const char *v = getenv(name);
    return v == NULL || strcmp(v, "0") != 0;
}

long fd_env_long(const char *name, long lo, long hi, long dflt)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return dflt;
    char *end = NULL;
    errno = 0;
    const long x = strtol(v, &end, 10);
    return errno == 0 && *end == '\0' && x >= lo && x <= hi ? x : dflt;
}

unsigned fd_env_log_flags(void)
{
    static const char *const names[2] = {"DISPATCH=", "CMD="};
    unsigned seen = 0, bits = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *v = *e;
        if (v[0] != 'F' || v[1] != 'R' || strncmp(v, "FREEDNN_LOG_", 12) != 0)
            continue;
        for (unsigned i = 0; i < 2; i++) {
            const size_t len = strlen(names[i]);
            if (!(seen & (1u << i)) && strncmp(v + 12, names[i], len) == 0) {
                seen |= 1u << i; /* the first definition counts, as getenv's */
                if (atoi(v + 12 + len) != 0)
                    bits |= 1u << i;
            }
        }
    }
    return bits;
}

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return fallback;
    return atoi(v);
}

static void log_init(void)
{
    gettimeofday(&log_start, NULL);
    int level = env_int("CUDNN_LOGLEVEL_DBG", -1);
    if (level < 0) { /* the switches cuDNN 7/8 users know; each implies the ones below it */
        level = 0;
        if (fd_env_flag("CUDNN_LOGERR_DBG"))
            level = 1;
        if (fd_env_flag("CUDNN_LOGWARN_DBG"))
            level = 2;
        if (fd_env_flag("CUDNN_LOGINFO_DBG"))
            level = 3;
    }
    log_level_env = level > 3 ? 3 : level;
    const char *dest = getenv("CUDNN_LOGDEST_DBG");
    if (log_level_env == 0)
        return;
    if (dest == NULL || strcmp(dest, "stderr") == 0) {
        log_dest = dest == NULL ? NULL : stderr; /* cuDNN logs nowhere without a destination */
    } else if (strcmp(dest, "stdout") == 0) {
        log_dest = stdout;
    } else {
        log_dest = fopen(dest, "a");
        if (log_dest == NULL)
            fprintf(stderr, "freednn: cannot open CUDNN_LOGDEST_DBG=%s; logging to stderr\n", dest);
        if (log_dest == NULL)
            log_dest = stderr;
    }
}

int fd_log_level(void)
{
    pthread_once(&log_once, log_init);
    return log_dest != NULL ? log_level_env : 0;
}

static unsigned long long thread_id(void)
{
    return (unsigned long long)syscall(SYS_gettid);
}

static void fill_debug(cudnnDebug_t *dbg, cudnnStatus_t status)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    memset(dbg, 0, sizeof *dbg);
    dbg->cudnn_version = cb_v7 ? FD_V7_VERSION : CUDNN_VERSION;
    dbg->cudnnStatus = cb_v7 ? fd_status_to_v7(status) : status;
    dbg->time_sec = (unsigned)now.tv_sec;
    dbg->time_usec = (unsigned)now.tv_usec;
    dbg->time_delta = (unsigned)(now.tv_sec - log_start.tv_sec);
    dbg->handle = tls_handle;
    dbg->stream = tls_handle != NULL ? tls_handle->stream : NULL;
    dbg->pid = (unsigned long long)getpid();
    dbg->tid = thread_id();
    dbg->cudaDeviceId = -1; /* host backends have no device */
}

/* One record: "<S>! CuDNN (v91900) function f() called:" + body lines + time and process. */
static void write_record(char sev, const char *body)
{
    char upper = sev, lower = (char)(sev - 'A' + 'a');
    struct timeval now;
    gettimeofday(&now, NULL);
    struct tm tm;
    time_t secs = now.tv_sec;
    localtime_r(&secs, &tm);
    long delta = (long)(now.tv_sec - log_start.tv_sec);
    pthread_mutex_lock(&log_lock);
    fprintf(log_dest, "%c! CuDNN (v%d) function %s() called:\n", upper, CUDNN_VERSION, tls_function);
    const char *line = body;
    while (*line != '\0') {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        fprintf(log_dest, "%c!     %.*s\n", lower, len, line);
        line += len + (end ? 1 : 0);
    }
    fprintf(log_dest, "%c! Time: %04d-%02d-%02dT%02d:%02d:%02d.%06ld (%ldd+%ldh+%ldm+%lds since start)\n",
            lower, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
            (long)now.tv_usec, delta / 86400, delta / 3600 % 24, delta / 60 % 60, delta % 60);
    fprintf(log_dest, "%c! Process=%d; Thread=%llu; GPU=NULL; Handle=%p; StreamId=%p.\n\n", lower,
            (int)getpid(), thread_id(), (void *)tls_handle,
            tls_handle != NULL ? (void *)tls_handle->stream : NULL);
    fflush(log_dest);
    pthread_mutex_unlock(&log_lock);
}

static void emit(cudnnSeverity_t sev, unsigned mask_bit, char letter, cudnnStatus_t status,
                 const char *body)
{
    if ((cb_mask & mask_bit) && fd_log_level() >= (int)sev)
        write_record(letter, body);
    if (cb_fn != NULL && (cb_mask & mask_bit)) {
        cudnnDebug_t dbg;
        fill_debug(&dbg, status);
        cb_fn(sev, cb_udata, &dbg, body);
    }
}

void fd_api_enter(const char *function, cudnnHandle_t handle)
{
    tls_function = function;
    tls_handle = (handle != NULL && handle->magic == FD_MAGIC_HANDLE) ? handle : NULL;
    if ((cb_mask & CUDNN_SEV_INFO_EN) && (fd_log_level() >= 3 || cb_fn != NULL)) {
        char body[128];
        snprintf(body, sizeof body, "handle: type=cudnnHandle_t; streamId=%p;",
                 tls_handle != NULL ? (void *)tls_handle->stream : NULL);
        emit(CUDNN_SEV_INFO, CUDNN_SEV_INFO_EN, 'I', CUDNN_STATUS_SUCCESS, body);
    }
}

cudnnStatus_t fd_error(cudnnStatus_t status, const char *file, int line, const char *fmt, ...)
{
    char reason[FD_LAST_ERROR_SIZE - 160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    base = base != NULL ? base + 1 : file;
    snprintf(tls_last_error, sizeof tls_last_error, "%s: %s (%s, %s:%d)", tls_function, reason,
             fd_status_name(status), base, line);
    char body[FD_LAST_ERROR_SIZE];
    snprintf(body, sizeof body, "Error: %s; Reason: %s", fd_status_name(status), reason);
    emit(CUDNN_SEV_ERROR, CUDNN_SEV_ERROR_EN, 'E', status, body);
    return status;
}

static void log_free_form(cudnnSeverity_t sev, unsigned bit, char letter, const char *fmt, va_list ap)
{
    if (fd_log_level() < (int)sev && !(cb_fn != NULL && (cb_mask & bit)))
        return;
    char body[FD_LAST_ERROR_SIZE];
    vsnprintf(body, sizeof body, fmt, ap);
    emit(sev, bit, letter, CUDNN_STATUS_SUCCESS, body);
}

void fd_log_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_free_form(CUDNN_SEV_WARNING, CUDNN_SEV_WARNING_EN, 'W', fmt, ap);
    va_end(ap);
}

void fd_log_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_free_form(CUDNN_SEV_INFO, CUDNN_SEV_INFO_EN, 'I', fmt, ap);
    va_end(ap);
}

cudnnStatus_t fd_unsupported(const char *function, const char *reason)
{
    tls_function = function;
    return fd_error(CUDNN_STATUS_NOT_SUPPORTED, "unsupported", 0, "%s is not supported by freednn yet: %s",
                    function, reason);
}

void CUDNNWINAPI cudnnGetLastErrorString(char *message, size_t max_size)
{
    if (message == NULL || max_size == 0)
        return;
    snprintf(message, max_size, "%s", tls_last_error);
}

cudnnStatus_t fd_log_set_callback(unsigned mask, void *udata, cudnnCallback_t fptr, int v7)
{
    fd_api_enter("cudnnSetCallback", NULL);
    pthread_once(&log_once, log_init);
    pthread_mutex_lock(&log_lock);
    cb_mask = mask;
    cb_udata = udata;
    cb_fn = fptr;
    cb_v7 = v7;
    pthread_mutex_unlock(&log_lock);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetCallback(unsigned mask, void *udata, cudnnCallback_t fptr)
{
    return fd_log_set_callback(mask, udata, fptr, 0);
}

cudnnStatus_t CUDNNWINAPI cudnnGetCallback(unsigned *mask, void **udata, cudnnCallback_t *fptr)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(mask);
    FD_CHECK_NOT_NULL(udata);
    FD_CHECK_NOT_NULL(fptr);
    pthread_mutex_lock(&log_lock);
    *mask = cb_mask;
    *udata = cb_udata;
    *fptr = cb_fn;
    pthread_mutex_unlock(&log_lock);
    return CUDNN_STATUS_SUCCESS;
}
