/* SPDX-License-Identifier: MIT */
/* gpu_mirror.c - the differential ref-vs-cuda harness of the GPU tier (gpu_mirror.h). */
#define _GNU_SOURCE
#include "gpu_mirror.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int gm_smoke;
cudnnHandle_t gm_ref, gm_cuda;
cudaStream_t gm_stream;
static const char *gm_prog = "gpu_mirror";
static int gm_cases, gm_case_failures;
static char gm_prog_tagged[256];

/* gm_rerun_with's children, running side by side until gm_finish waits for them. */
#define GM_CHILDREN_MAX 20
static struct {
    pid_t pid;
    char what[96]; /* name=value */
} gm_child[GM_CHILDREN_MAX];
static int gm_nchild;

static int cuda_ok(cudaError_t e, const char *expr, const char *label)
{
    FD_EXPECT(e == cudaSuccess, "%s: %s: %s (%s)", label, expr, cudaGetErrorName(e), cudaGetErrorString(e));
    return e == cudaSuccess;
}
#define CUDA_OK(expr, label) cuda_ok((expr), #expr, (label))

void gm_init(int argc, char **argv, const char *prog)
{
    /* whole lines, so the side-by-side children's lines and the parent's do not cut each other
     * (the processes share one file offset; each line is one write) */
    setvbuf(stdout, NULL, _IOLBF, 0);
    gm_prog = prog;
    const char *rerun = getenv("FD_GM_RERUN");
    if (rerun != NULL) { /* a child: its lines name its switch */
        snprintf(gm_prog_tagged, sizeof gm_prog_tagged, "%s[%s]", prog, rerun);
        gm_prog = prog = gm_prog_tagged;
    }
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--smoke") == 0)
            gm_smoke = 1;
    cudnnStatus_t st = freednnCreateWithBackend(&gm_cuda, FREEDNN_BACKEND_CUDA);
    if (st != CUDNN_STATUS_SUCCESS) {
        printf("%s: the cuda backend cannot run here: %s\n", prog, cudnnGetErrorString(st));
        char msg[512] = "";
        cudnnGetLastErrorString(msg, sizeof msg);
        printf("skipped: %s\n", msg);
        exit(77);
    }
    FD_EXPECT_STATUS(freednnCreateWithBackend(&gm_ref, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    /* A non-blocking stream of our own: the library must use the handle's stream. */
    CUDA_OK(cudaStreamCreateWithFlags(&gm_stream, cudaStreamNonBlocking), prog);
    FD_EXPECT_STATUS(cudnnSetStream(gm_cuda, gm_stream), CUDNN_STATUS_SUCCESS);
    struct cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        printf("%s: %s, sm_%d%d, %d SMs%s\n", prog, prop.name, prop.major, prop.minor,
               prop.multiProcessorCount, gm_smoke ? " (smoke subset)" : "");
}

/* Element i of a payload as a double; INT8 and other byte types compare as bytes. */
static double elem(cudnnDataType_t dt, const void *base, int64_t i)
{
    if (fd_test_dtype_size(dt) == 0)
        return ((const unsigned char *)base)[i];
    return fd_test_load(dt, base, i);
}

static size_t elem_size(cudnnDataType_t dt)
{
    size_t s = fd_test_dtype_size(dt);
    return s ? s : 1;
}

void gm_tol(gm_buf_t *b, cudnnDataType_t dt, int64_t k)
{
    double u = fd_unit_roundoff(dt);
    double u_acc = dt == CUDNN_DATA_DOUBLE ? 0x1p-53 : 0x1p-24;
    b->rel_tol = 4.0 * u + 2.0 * (double)(k < 1 ? 1 : k) * u_acc;
    b->abs_tol = b->rel_tol + fd_tolerance_tiny(dt);
}

/* Compares one output; prints the first few differences. Returns 1 when they agree. */
static int compare(const gm_case_t *c, int i, const void *ref, const void *got, const char *what)
{
    const gm_buf_t *b = &c->buf[i];
    int64_t n = (int64_t)(b->bytes / elem_size(b->dt));
    int bad = 0;
    if (b->abs_tol == 0 && b->rel_tol == 0) {
        if (memcmp(ref, got, b->bytes) == 0)
            return 1;
    }
    for (int64_t e = 0; e < n; e++) {
        double r = elem(b->dt, ref, e), g = elem(b->dt, got, e);
        int ok;
        if (b->abs_tol == 0 && b->rel_tol == 0) {
            size_t es = elem_size(b->dt);
            /* NaN matches NaN whatever its sign and payload: cuDNN promises neither */
            ok = memcmp((const char *)ref + e * es, (const char *)got + e * es, es) == 0 ||
                 (isnan(r) && isnan(g));
        } else if (isnan(r) || isnan(g)) {
            ok = isnan(r) && isnan(g);
        } else if (isinf(r) || isinf(g)) {
            ok = r == g;
        } else {
            ok = fabs(g - r) <= b->abs_tol + b->rel_tol * fabs(r);
        }
        if (!ok) {
            if (bad < 4 && fd_test_should_print())
                printf("  %s: %s %s[%lld]: cuda %.9g, ref %.9g (tol %.3g + %.3g*|ref|)\n", c->label, what,
                       b->name, (long long)e, g, r, b->abs_tol, b->rel_tol);
            bad++;
        }
    }
    FD_EXPECT(bad == 0, "%s: %s %s: %d of %lld elements differ", c->label, what, b->name, bad, (long long)n);
    return bad == 0;
}

typedef struct {
    fd_buf_t h[GM_MAX_BUFS];
    unsigned char *d[GM_MAX_BUFS];
    void *ptr[GM_MAX_BUFS];
} side_t;

static void side_free(side_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        fd_buf_free(&s->h[i]);
        if (s->d[i])
            cudaFree(s->d[i]);
        s->d[i] = NULL;
    }
}

/* Host copies of the ref side's initial bytes, then (device side) whole-region uploads. */
static int side_copy(side_t *s, const gm_case_t *c, const side_t *init, int device)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < c->nbuf; i++) {
        s->h[i] = fd_buf_alloc(c->buf[i].bytes);
        memcpy(s->h[i].base, init->h[i].base, c->buf[i].bytes + 2 * (size_t)FD_GUARD_BYTES);
        s->ptr[i] = s->h[i].data;
        if (!device || c->buf[i].role == GM_HOST)
            continue;
        size_t whole = c->buf[i].bytes + 2 * (size_t)FD_GUARD_BYTES;
        if (!CUDA_OK(cudaMalloc((void **)&s->d[i], whole), c->label))
            return 0;
        if (!CUDA_OK(cudaMemcpy(s->d[i], s->h[i].base, whole, cudaMemcpyHostToDevice), c->label))
            return 0;
        s->ptr[i] = s->d[i] + FD_GUARD_BYTES;
    }
    /* cudaMemcpy from pageable memory returns once the bytes are staged, not when they have
     * landed, and gm_stream does not wait for the legacy stream (cudaStreamNonBlocking): without
     * this wait a call could read an input before its upload finished (seen on the H200 as
     * "differs between two cuda runs" when six test programs shared the GPU). */
    return !device || CUDA_OK(cudaDeviceSynchronize(), c->label);
}

static int side_download(side_t *s, const gm_case_t *c)
{
    int ok = CUDA_OK(cudaStreamSynchronize(gm_stream), c->label);
    for (int i = 0; i < c->nbuf; i++)
        if (s->d[i])
            ok &= CUDA_OK(cudaMemcpy(s->h[i].base, s->d[i], c->buf[i].bytes + 2 * (size_t)FD_GUARD_BYTES,
                                     cudaMemcpyDeviceToHost),
                          c->label);
    return ok;
}

static int check_side(const gm_case_t *c, const side_t *s, const uint64_t *in_hash, const char *what)
{
    int ok = 1;
    for (int i = 0; i < c->nbuf; i++) {
        int g = fd_buf_guards_ok(&s->h[i]);
        FD_EXPECT(g, "%s: %s wrote outside %s (guard zone changed)", c->label, what, c->buf[i].name);
        ok &= g;
        gm_role_t r = c->buf[i].role;
        if (r == GM_IN || r == GM_HOST) {
            int same = fd_buf_hash(&s->h[i]) == in_hash[i];
            FD_EXPECT(same, "%s: %s changed input %s", c->label, what, c->buf[i].name);
            ok &= same;
        }
    }
    return ok;
}

char gm_last_impl[128];

/* "... dispatch: <problem> -> <row>": keeps <row>. */
static void on_dispatch_log(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)udata, (void)dbg;
    const char *arrow = strstr(msg, "dispatch: ");
    const char *to = arrow ? strstr(arrow, " -> ") : NULL;
    if (to)
        snprintf(gm_last_impl, sizeof gm_last_impl, "%s", to + 4);
}

void gm_watch_dispatch(void)
{
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, on_dispatch_log), CUDNN_STATUS_SUCCESS);
}

cudnnStatus_t gm_conv_call(cudnnHandle_t h, int dir, int algo, cudnnTensorDescriptor_t xd,
                           cudnnFilterDescriptor_t wd, cudnnConvolutionDescriptor_t cd,
                           cudnnTensorDescriptor_t yd, double alpha, double beta, void *const *ptr,
                           size_t ws)
{
    const float a = (float)alpha, b = (float)beta;
    if (dir == 1)
        return cudnnConvolutionBackwardData(h, &a, wd, ptr[1], yd, ptr[0], cd,
                                            (cudnnConvolutionBwdDataAlgo_t)algo, ptr[3], ws, &b, xd,
                                            ptr[2]);
    if (dir == 2)
        return cudnnConvolutionBackwardFilter(h, &a, xd, ptr[0], yd, ptr[1], cd,
                                              (cudnnConvolutionBwdFilterAlgo_t)algo, ptr[3], ws, &b,
                                              wd, ptr[2]);
    return cudnnConvolutionForward(h, &a, xd, ptr[0], wd, ptr[1], cd, (cudnnConvolutionFwdAlgo_t)algo,
                                   ptr[3], ws, &b, yd, ptr[2]);
}

size_t gm_conv_workspace(cudnnHandle_t h, int dir, int algo, cudnnTensorDescriptor_t xd,
                         cudnnFilterDescriptor_t wd, cudnnConvolutionDescriptor_t cd,
                         cudnnTensorDescriptor_t yd)
{
    size_t ws = 0;
    const cudnnStatus_t st =
        dir == 1   ? cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, yd, cd, xd,
                                                                  (cudnnConvolutionBwdDataAlgo_t)algo, &ws)
        : dir == 2 ? cudnnGetConvolutionBackwardFilterWorkspaceSize(
                         h, xd, yd, cd, wd, (cudnnConvolutionBwdFilterAlgo_t)algo, &ws)
                   : cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd,
                                                             (cudnnConvolutionFwdAlgo_t)algo, &ws);
    FD_EXPECT_STATUS(st, CUDNN_STATUS_SUCCESS);
    return ws;
}

int gm_run(const gm_case_t *c)
{
    gm_cases++;
    int failed_before = fd_test_failed;
    side_t init, ref, cu, cu2;
    memset(&init, 0, sizeof init);
    uint64_t in_hash[GM_MAX_BUFS];
    for (int i = 0; i < c->nbuf; i++) {
        init.h[i] = fd_buf_alloc(c->buf[i].bytes);
        if (c->buf[i].role == GM_OUT || c->buf[i].role == GM_WS)
            fd_buf_poison(&init.h[i]);
        if (c->fill && c->buf[i].role != GM_WS)
            c->fill(i, init.h[i].data, c->buf[i].bytes, c->ctx);
        in_hash[i] = fd_buf_hash(&init.h[i]);
    }
    side_copy(&ref, c, &init, 0);
    cudnnStatus_t st_ref = c->call(gm_ref, ref.ptr, c->ctx);
    FD_EXPECT(st_ref == c->want, "%s: ref returned %s, want %s", c->label, cudnnGetErrorString(st_ref),
              cudnnGetErrorString(c->want));
    check_side(c, &ref, in_hash, "ref");

    if (side_copy(&cu, c, &init, 1)) {
        cudnnStatus_t st = c->call(gm_cuda, cu.ptr, c->ctx);
        char why[512] = "";
        if (st != CUDNN_STATUS_SUCCESS)
            cudnnGetLastErrorString(why, sizeof why);
        FD_EXPECT(st == st_ref, "%s: cuda returned %s, ref %s (%s)", c->label, cudnnGetErrorString(st),
                  cudnnGetErrorString(st_ref), why);
        if (side_download(&cu, c) && check_side(c, &cu, in_hash, "cuda") && st == CUDNN_STATUS_SUCCESS &&
            st_ref == CUDNN_STATUS_SUCCESS) {
            for (int i = 0; i < c->nbuf; i++)
                if (c->buf[i].role == GM_OUT || c->buf[i].role == GM_INOUT)
                    compare(c, i, ref.h[i].data, cu.h[i].data, "cuda vs ref");
            if (c->det && side_copy(&cu2, c, &init, 1)) {
                cudnnStatus_t st2 = c->call(gm_cuda, cu2.ptr, c->ctx);
                FD_EXPECT(st2 == st, "%s: second cuda run returned %s", c->label, cudnnGetErrorString(st2));
                if (side_download(&cu2, c))
                    for (int i = 0; i < c->nbuf; i++)
                        if (c->buf[i].role == GM_OUT || c->buf[i].role == GM_INOUT) {
                            int same = memcmp(cu.h[i].data, cu2.h[i].data, c->buf[i].bytes) == 0;
                            FD_EXPECT(same, "%s: %s differs between two cuda runs (claimed deterministic)",
                                      c->label, c->buf[i].name);
                        }
                side_free(&cu2, c->nbuf);
            }
        }
    }
    side_free(&cu, c->nbuf);
    side_free(&ref, c->nbuf);
    side_free(&init, c->nbuf);
    int ok = fd_test_failed == failed_before;
    FD_EXPECT(1, "case"); /* every case counts one check */
    if (!ok)
        gm_case_failures++;
    return ok;
}

int gm_finish(void)
{
    for (int k = 0; k < gm_nchild; k++) {
        int status = 0;
        const pid_t got = waitpid(gm_child[k].pid, &status, 0);
        FD_EXPECT(got == gm_child[k].pid, "waitpid of the %s child failed", gm_child[k].what);
        FD_EXPECT(got != gm_child[k].pid || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
                  "the child with %s failed (status 0x%x)", gm_child[k].what, status);
    }
    gm_nchild = 0;
    printf("%s: %d cases, %d failed\n", gm_prog, gm_cases, gm_case_failures);
    if (gm_cuda)
        cudnnDestroy(gm_cuda);
    if (gm_ref)
        cudnnDestroy(gm_ref);
    if (gm_stream)
        cudaStreamDestroy(gm_stream);
    return fd_test_finish();
}

void gm_rerun_with(char **argv, const char *name, const char *value)
{
    if (getenv(name) != NULL || getenv("FD_GM_RERUN") != NULL)
        return;
    FD_EXPECT(gm_nchild < GM_CHILDREN_MAX, "more than %d gm_rerun_with children", GM_CHILDREN_MAX);
    if (gm_nchild >= GM_CHILDREN_MAX)
        return;
    char what[96];
    snprintf(what, sizeof what, "%s=%s", name, value);
    printf("%s: again with %s (side by side)\n", gm_prog, what);
    fflush(stdout);
    fflush(stderr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        /* the child dies with the program: a runner's timeout that stops the program (which
         * signals it alone) must not leave the child on the GPU beside the next run */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        setenv(name, value, 1);
        setenv("FD_GM_RERUN", what, 1); /* a child reruns nothing itself */
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    FD_EXPECT(pid > 0, "fork of the %s child failed", what);
    if (pid > 0) {
        gm_child[gm_nchild].pid = pid;
        snprintf(gm_child[gm_nchild].what, sizeof gm_child[gm_nchild].what, "%s", what);
        gm_nchild++;
    }
}
