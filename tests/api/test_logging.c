/* SPDX-License-Identifier: MIT */
/*
 * test_logging.c - the cuDNN logging environment (contract §1.9, DESIGN D10).
 *
 * The library reads CUDNN_LOGLEVEL_DBG / CUDNN_LOG{ERR,WARN,INFO}_DBG and CUDNN_LOGDEST_DBG once
 * per process, so every case runs this binary again as a child ("child <action>") with its own
 * environment and its stdout/stderr captured in files. The child makes one rejected call
 * (cudnnSetConvolution2dDescriptor with stride 0) and one successful one
 * (cudnnCreateTensorDescriptor); the parent reads what was logged and where.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd_test.h"

extern char **environ;

/* ---- child ------------------------------------------------------------------------------ */

static int child(const char *action)
{
    if (strcmp(action, "mask0") == 0)
        cudnnSetCallback(0, NULL, NULL); /* header: mask 0 disables logging */
    cudnnTensorDescriptor_t t = NULL;
    if (cudnnCreateTensorDescriptor(&t) != CUDNN_STATUS_SUCCESS)
        return 2;
    cudnnConvolutionDescriptor_t c = NULL;
    if (cudnnCreateConvolutionDescriptor(&c) != CUDNN_STATUS_SUCCESS)
        return 2;
    if (cudnnSetConvolution2dDescriptor(c, 1, 1, 0, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                        CUDNN_DATA_FLOAT) != CUDNN_STATUS_BAD_PARAM)
        return 3;
    cudnnDestroyConvolutionDescriptor(c);
    cudnnDestroyTensorDescriptor(t);
    return 0;
}

/* ---- parent ----------------------------------------------------------------------------- */

enum { W_FILE, W_STDOUT, W_STDERR, W_NONE };
static const char *const where_names[] = {"the log file", "stdout", "stderr", "nowhere"};

typedef struct {
    const char *name;
    const char *action;
    const char *env[3]; /* "@FILE@" stands for the case's log file */
    int where;          /* where records must appear (the other places stay silent) */
    int want_error;     /* the E! record of cudnnSetConvolution2dDescriptor */
    int want_info;      /* the I! record of cudnnCreateTensorDescriptor */
} log_case_t;

#define DEST_FILE "CUDNN_LOGDEST_DBG=@FILE@"
static const log_case_t cases[] = {
    {"level0_file", "basic", {"CUDNN_LOGLEVEL_DBG=0", DEST_FILE}, W_NONE, 0, 0},
    {"level1_file", "basic", {"CUDNN_LOGLEVEL_DBG=1", DEST_FILE}, W_FILE, 1, 0},
    {"level2_file", "basic", {"CUDNN_LOGLEVEL_DBG=2", DEST_FILE}, W_FILE, 1, 0},
    {"level3_file", "basic", {"CUDNN_LOGLEVEL_DBG=3", DEST_FILE}, W_FILE, 1, 1},
    {"level9_clipped_to_3", "basic", {"CUDNN_LOGLEVEL_DBG=9", DEST_FILE}, W_FILE, 1, 1},
    {"level_neg1_clipped_to_0", "basic", {"CUDNN_LOGLEVEL_DBG=-1", DEST_FILE}, W_NONE, 0, 0},
    {"level3_without_destination", "basic", {"CUDNN_LOGLEVEL_DBG=3"}, W_NONE, 0, 0},
    {"destination_without_level", "basic", {DEST_FILE}, W_NONE, 0, 0},
    {"level1_stdout",
     "basic",
     {"CUDNN_LOGLEVEL_DBG=1", "CUDNN_LOGDEST_DBG=stdout"},
     W_STDOUT,
     1,
     0},
    {"level3_stderr",
     "basic",
     {"CUDNN_LOGLEVEL_DBG=3", "CUDNN_LOGDEST_DBG=stderr"},
     W_STDERR,
     1,
     1},
    {"v7_logerr", "basic", {"CUDNN_LOGERR_DBG=1", DEST_FILE}, W_FILE, 1, 0},
    {"v7_logwarn", "basic", {"CUDNN_LOGWARN_DBG=1", DEST_FILE}, W_FILE, 1, 0},
    {"v7_loginfo", "basic", {"CUDNN_LOGINFO_DBG=1", DEST_FILE}, W_FILE, 1, 1},
    {"v7_logerr_0", "basic", {"CUDNN_LOGERR_DBG=0", DEST_FILE}, W_NONE, 0, 0},
    {"v7_loginfo_stdout",
     "basic",
     {"CUDNN_LOGINFO_DBG=1", "CUDNN_LOGDEST_DBG=stdout"},
     W_STDOUT,
     1,
     1},
    {"mask0_silences_level3", "mask0", {"CUDNN_LOGLEVEL_DBG=3", DEST_FILE}, W_FILE, 0, 0},
};

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* The line after `from` that starts with `prefix`, within the record (up to a blank line). */
static const char *record_line(const char *from, const char *prefix)
{
    const char *p = from;
    while (p != NULL && *p != '\0') {
        const char *nl = strchr(p, '\n');
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            return p;
        if (nl == NULL || nl[1] == '\n')
            return NULL;
        p = nl + 1;
    }
    return NULL;
}

static int line_has(const char *line, const char *needle)
{
    if (line == NULL)
        return 0;
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)len, line);
    return strstr(buf, needle) != NULL;
}

/* Checks one cuDNN-style record: header, body lines, time and process lines. */
static void check_record(const log_case_t *c, const char *text, char sev, const char *function,
                         pid_t pid)
{
    char header[128];
    snprintf(header, sizeof header, "%c! CuDNN (v%d", sev, CUDNN_VERSION);
    char fn[128];
    snprintf(fn, sizeof fn, "function %s() called:", function);
    const char *h = text;
    while ((h = strstr(h, header)) != NULL && !line_has(h, fn))
        h++;
    FD_EXPECT(h != NULL, "%s: no \"%s ...) %s\" record in %s", c->name, header, fn,
              where_names[c->where]);
    if (h == NULL)
        return;
    FD_EXPECT(h == text || h[-1] == '\n', "%s: record header not at the start of a line", c->name);
    char body[4];
    snprintf(body, sizeof body, "%c! ", sev - 'A' + 'a');
    const char *first = strchr(h, '\n');
    if (sev == 'E') {
        const char *reason = record_line(first + 1, body);
        FD_EXPECT(line_has(reason, "Error: CUDNN_STATUS_BAD_PARAM; Reason:"),
                  "%s: no \"Error: ...; Reason:\" line", c->name);
        FD_EXPECT(line_has(reason, "stride"), "%s: the Reason line does not mention the stride",
                  c->name);
    }
    char time_prefix[16], proc_prefix[32], pid_text[64];
    snprintf(time_prefix, sizeof time_prefix, "%sTime: ", body);
    snprintf(proc_prefix, sizeof proc_prefix, "%sProcess=", body);
    snprintf(pid_text, sizeof pid_text, "Process=%d;", (int)pid);
    const char *time_line = record_line(first + 1, time_prefix);
    FD_EXPECT(time_line != NULL && line_has(time_line, "since start"),
              "%s: %c record has no \"Time:\" line", c->name, sev);
    const char *proc = record_line(first + 1, proc_prefix);
    FD_EXPECT(line_has(proc, pid_text) && line_has(proc, "Thread=") && line_has(proc, "Handle="),
              "%s: %c record's Process line is missing or not \"%s ... Thread= ... Handle=\"",
              c->name, sev, pid_text);
}

static int has_record(const char *text, char sev, const char *function)
{
    char header[64], fn[128];
    snprintf(header, sizeof header, "%c! CuDNN (v", sev);
    snprintf(fn, sizeof fn, "function %s() called:", function);
    for (const char *h = strstr(text, header); h != NULL; h = strstr(h + 1, header))
        if (line_has(h, fn))
            return 1;
    return 0;
}

static void run_case(const char *self, const char *dir, const log_case_t *c)
{
    char log_path[512], out_path[512], err_path[512];
    snprintf(log_path, sizeof log_path, "%s/%s.log", dir, c->name);
    snprintf(out_path, sizeof out_path, "%s/%s.out", dir, c->name);
    snprintf(err_path, sizeof err_path, "%s/%s.err", dir, c->name);

    /* the parent's environment without any logging variable, plus the case's */
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **envp = calloc(n + 4, sizeof *envp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "CUDNN_LOG", 9) != 0 && strncmp(environ[i], "FREEDNN_LOG", 11) != 0)
            envp[k++] = environ[i];
    char owned[3][600];
    for (int i = 0; i < 3 && c->env[i] != NULL; i++) {
        const char *at = strstr(c->env[i], "@FILE@");
        if (at != NULL)
            snprintf(owned[i], sizeof owned[i], "%.*s%s", (int)(at - c->env[i]), c->env[i],
                     log_path);
        else
            snprintf(owned[i], sizeof owned[i], "%s", c->env[i]);
        envp[k++] = owned[i];
    }
    envp[k] = NULL;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char *argv[] = {(char *)self, "child", (char *)c->action, NULL};
    pid_t pid = 0;
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    FD_EXPECT(rc == 0, "%s: posix_spawn failed (%d)", c->name, rc);
    if (rc != 0)
        return;
    int status = 0;
    waitpid(pid, &status, 0);
    FD_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: child ended with status %#x",
              c->name, status);

    char *text[3] = {read_file(log_path), read_file(out_path), read_file(err_path)};
    for (int w = W_FILE; w <= W_STDERR; w++) {
        int here = w == c->where;
        if (!here) {
            FD_EXPECT(strstr(text[w], "CuDNN (v") == NULL, "%s: records written to %s:\n%s",
                      c->name, where_names[w], text[w]);
            continue;
        }
        if (c->want_error)
            check_record(c, text[w], 'E', "cudnnSetConvolution2dDescriptor", pid);
        else
            FD_EXPECT(!has_record(text[w], 'E', "cudnnSetConvolution2dDescriptor"),
                      "%s: unexpected E! record in %s", c->name, where_names[w]);
        if (c->want_info)
            check_record(c, text[w], 'I', "cudnnCreateTensorDescriptor", pid);
        else
            FD_EXPECT(!has_record(text[w], 'I', "cudnnCreateTensorDescriptor"),
                      "%s: unexpected I! record in %s", c->name, where_names[w]);
    }
    for (int w = 0; w < 3; w++)
        free(text[w]);
    unlink(log_path);
    unlink(out_path);
    unlink(err_path);
}

/* A destination that cannot be opened: the child must not fail, and must say why. */
static void run_bad_destination(const char *self, const char *dir)
{
    char err_path[512];
    snprintf(err_path, sizeof err_path, "%s/bad_dest.err", dir);
    char *envp[] = {"CUDNN_LOGLEVEL_DBG=1", "CUDNN_LOGDEST_DBG=/nonexistent-dir/freednn/x.log",
                    NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char *argv[] = {(char *)self, "child", "basic", NULL};
    pid_t pid = 0;
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    FD_EXPECT(rc == 0, "bad destination: posix_spawn failed");
    if (rc != 0)
        return;
    int status = 0;
    waitpid(pid, &status, 0);
    FD_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "bad destination: child ended with status %#x", status);
    char *err = read_file(err_path);
    FD_EXPECT(strstr(err, "CUDNN_LOGDEST_DBG") != NULL,
              "bad destination: stderr does not explain it:\n%s", err);
    free(err);
    unlink(err_path);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "child") == 0)
        return child(argv[2]);
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        snprintf(self, sizeof self, "%s", argv[0]);
    else
        self[len] = '\0';
    char dir[] = "/tmp/freednn_logXXXXXX";
    FD_EXPECT(mkdtemp(dir) != NULL, "mkdtemp");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(self, dir, &cases[i]);
    run_bad_destination(self, dir);
    rmdir(dir);
    printf("logging: %zu environment cases + 1 bad destination\n", sizeof cases / sizeof cases[0]);
    return fd_test_finish();
}
