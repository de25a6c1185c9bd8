/* SPDX-License-Identifier: MIT */
/*
 * cuda.c - the checks on NVIDIA's side: the driver and its GPUs (libcuda.so.1), the CUDA
 * runtime and its compatibility with the driver (libcudart), and memory bandwidth. Both
 * libraries are reached through dlopen only, so the doctor runs, and says why, on a machine
 * without either.
 */
#define _GNU_SOURCE /* dladdr, dlinfo, RTLD_NEXT, memmem, strndup */
#include <ctype.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudnn.h"
#include "doctor.h"

/* ---- loading ------------------------------------------------------------------------------- */

/* The path ld.so loaded `lib` from, and its real path when that differs (else ""). */
static void lib_path(void *lib, char *out, size_t size, char *real_out, size_t real_size)
{
    struct link_map *lm = NULL;
    out[0] = real_out[0] = '\0';
    if (dlinfo(lib, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && lm->l_name != NULL) {
        char real[4096];
        snprintf(out, size, "%s", lm->l_name);
        if (realpath(lm->l_name, real) != NULL && strcmp(real, lm->l_name) != 0)
            snprintf(real_out, real_size, "%s", real);
    }
}

#define DR_SYM(lib, s, field, name) (*(void **)&(s)->field = dlsym((lib), (name)))

static int load_driver(dr_driver_t *d)
{
    d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (d->lib == NULL) {
        const char *e = dlerror();
        snprintf(d->why, sizeof d->why, "%s", e ? e : "unknown dlopen error");
        return 0;
    }
    lib_path(d->lib, d->path, sizeof d->path, d->real, sizeof d->real);
    DR_SYM(d->lib, d, cuInit, "cuInit");
    DR_SYM(d->lib, d, cuDriverGetVersion, "cuDriverGetVersion");
    DR_SYM(d->lib, d, cuDeviceGetCount, "cuDeviceGetCount");
    DR_SYM(d->lib, d, cuDeviceGet, "cuDeviceGet");
    DR_SYM(d->lib, d, cuDeviceGetName, "cuDeviceGetName");
    DR_SYM(d->lib, d, cuDeviceGetAttribute, "cuDeviceGetAttribute");
    if (DR_SYM(d->lib, d, cuDeviceTotalMem, "cuDeviceTotalMem_v2") == NULL)
        DR_SYM(d->lib, d, cuDeviceTotalMem, "cuDeviceTotalMem");
    DR_SYM(d->lib, d, cuGetErrorName, "cuGetErrorName");
    DR_SYM(d->lib, d, cuGetErrorString, "cuGetErrorString");
    const char *missing = !d->cuInit                 ? "cuInit"
                          : !d->cuDriverGetVersion   ? "cuDriverGetVersion"
                          : !d->cuDeviceGetCount     ? "cuDeviceGetCount"
                          : !d->cuDeviceGet          ? "cuDeviceGet"
                          : !d->cuDeviceGetName      ? "cuDeviceGetName"
                          : !d->cuDeviceGetAttribute ? "cuDeviceGetAttribute"
                          : !d->cuDeviceTotalMem     ? "cuDeviceTotalMem_v2"
                                                     : NULL;
    if (missing != NULL) {
        snprintf(d->why, sizeof d->why, "libcuda.so.1 does not export %s", missing);
        return -1;
    }
    return 1;
}

static const char *cu_err(const dr_driver_t *d, int r, char *buf, size_t size)
{
    const char *name = NULL, *text = NULL;
    if (d->cuGetErrorName == NULL || d->cuGetErrorName(r, &name) != 0)
        name = NULL;
    if (d->cuGetErrorString == NULL || d->cuGetErrorString(r, &text) != 0)
        text = NULL;
    snprintf(buf, size, "%s (%d)%s%s", name ? name : "CUresult", r, text ? ": " : "",
             text ? text : "");
    return buf;
}

static const char *const runtime_names[] = {"libcudart.so.13", "libcudart.so.12",
                                            "libcudart.so.11.0", "libcudart.so"};

static int load_runtime(dr_runtime_t *rt)
{
    /* A libfreednn built with CUDA has already loaded its runtime: use that one. */
    for (int pass = 0; pass < 2 && rt->lib == NULL; pass++) {
        for (size_t i = 0; i < sizeof runtime_names / sizeof runtime_names[0]; i++) {
            rt->lib =
                dlopen(runtime_names[i], RTLD_NOW | RTLD_LOCAL | (pass == 0 ? RTLD_NOLOAD : 0));
            if (rt->lib != NULL) {
                snprintf(rt->soname, sizeof rt->soname, "%s", runtime_names[i]);
                rt->already_loaded = pass == 0;
                break;
            }
        }
    }
    if (rt->lib == NULL)
        return 0;
    lib_path(rt->lib, rt->path, sizeof rt->path, rt->real, sizeof rt->real);
    DR_SYM(rt->lib, rt, cudaRuntimeGetVersion, "cudaRuntimeGetVersion");
    DR_SYM(rt->lib, rt, cudaDriverGetVersion, "cudaDriverGetVersion");
    DR_SYM(rt->lib, rt, cudaGetDeviceCount, "cudaGetDeviceCount");
    DR_SYM(rt->lib, rt, cudaGetErrorName, "cudaGetErrorName");
    DR_SYM(rt->lib, rt, cudaGetErrorString, "cudaGetErrorString");
    DR_SYM(rt->lib, rt, cudaSetDevice, "cudaSetDevice");
    DR_SYM(rt->lib, rt, cudaMalloc, "cudaMalloc");
    DR_SYM(rt->lib, rt, cudaFree, "cudaFree");
    DR_SYM(rt->lib, rt, cudaMallocHost, "cudaMallocHost");
    DR_SYM(rt->lib, rt, cudaFreeHost, "cudaFreeHost");
    DR_SYM(rt->lib, rt, cudaMemcpy, "cudaMemcpy");
    DR_SYM(rt->lib, rt, cudaDeviceSynchronize, "cudaDeviceSynchronize");
    DR_SYM(rt->lib, rt, cudaEventCreate, "cudaEventCreate");
    DR_SYM(rt->lib, rt, cudaEventDestroy, "cudaEventDestroy");
    DR_SYM(rt->lib, rt, cudaEventRecord, "cudaEventRecord");
    DR_SYM(rt->lib, rt, cudaEventSynchronize, "cudaEventSynchronize");
    DR_SYM(rt->lib, rt, cudaEventElapsedTime, "cudaEventElapsedTime");
    return rt->cudaRuntimeGetVersion && rt->cudaGetDeviceCount && rt->cudaGetErrorName &&
                   rt->cudaGetErrorString && rt->cudaSetDevice && rt->cudaMalloc && rt->cudaFree &&
                   rt->cudaMallocHost && rt->cudaFreeHost && rt->cudaMemcpy &&
                   rt->cudaDeviceSynchronize && rt->cudaEventCreate && rt->cudaEventDestroy &&
                   rt->cudaEventRecord && rt->cudaEventSynchronize && rt->cudaEventElapsedTime
               ? 1
               : -1;
}

static const char *rt_err(const dr_runtime_t *rt, int r, char *buf, size_t size)
{
    snprintf(buf, size, "%s (%d): %s", rt->cudaGetErrorName(r), r, rt->cudaGetErrorString(r));
    return buf;
}

/* The kernel module's version from /proc/driver/nvidia/version ("580.95.05"), or "". */
static void kernel_module_version(char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (f == NULL)
        return;
    char line[512];
    if (fgets(line, sizeof line, f) != NULL) {
        for (char *tok = strtok(line, " \t\n"); tok != NULL; tok = strtok(NULL, " \t\n")) {
            char *dot = strchr(tok, '.');
            if (isdigit((unsigned char)tok[0]) && dot != NULL && isdigit((unsigned char)dot[1])) {
                snprintf(out, size, "%s", tok);
                break;
            }
        }
    }
    fclose(f);
}

/* The oldest Linux driver branch that runs a runtime of this CUDA major version (NVIDIA's CUDA
 * compatibility table: minor-version compatibility within a major release). */
static const char *min_driver_for(int cuda_major)
{
    switch (cuda_major) {
    case 11:
        return "450.80.02";
    case 12:
        return "525.60.13";
    case 13:
        return "580";
    default:
        return NULL;
    }
}

/* ---- check 1: GPUs ------------------------------------------------------------------------- */

void dr_check_gpu(dr_ctx_t *ctx, dr_check_t *c)
{
    dr_driver_t *d = &ctx->drv;
    char kmod[64], e[512], v[32];
    kernel_module_version(kmod, sizeof kmod);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    int loaded = load_driver(d);
    if (loaded == 0) {
        const char *node = access("/dev/nvidiactl", F_OK) == 0 ? "/dev/nvidiactl"
                           : access("/dev/nvidia0", F_OK) == 0 ? "/dev/nvidia0"
                                                               : NULL;
        if (node != NULL || kmod[0]) {
            dr_set(c, DR_FAIL,
                   "the NVIDIA kernel driver is present (%s%s%s) but libcuda.so.1 is "
                   "not loadable: the cuda backend cannot run",
                   node ? node : "", node && kmod[0] ? ", kernel module " : "", kmod);
            dr_fix(c,
                   "install the driver's user-space libraries (libcuda.so.1) of the same version "
                   "as the kernel module%s%s",
                   kmod[0] ? ", " : "", kmod);
            dr_fix(c, "in a container: start it with the NVIDIA Container Toolkit (docker run "
                      "--gpus all ...), which mounts libcuda.so.1 from the host");
        } else {
            dr_set(c, DR_NA,
                   "no NVIDIA driver found (libcuda.so.1 not loadable): the cuda backend "
                   "cannot run here; freednn uses the cpu backend");
        }
        dr_note(c, "dlopen(\"libcuda.so.1\"): %s", d->why);
        dr_fact_int(c, "gpu_count", 0);
        dr_fact_raw(c, "driver_found", "false");
        return;
    }
    dr_fact_raw(c, "driver_found", "true");
    dr_fact_str(c, "driver_path", d->path);
    if (kmod[0])
        dr_fact_str(c, "kernel_module", kmod);
    if (loaded < 0) {
        dr_set(c, DR_FAIL, "%s (%s)", d->why, d->path);
        dr_fix(c,
               "libcuda.so.1 should come from the NVIDIA driver; reinstall the driver, and check "
               "that no other file of that name comes first on LD_LIBRARY_PATH");
        return;
    }
    dr_note(c, "driver: %s%s%s%s%s", d->path, d->real[0] ? " -> " : "", d->real,
            kmod[0] ? ", kernel module " : "", kmod);
    if (visible != NULL)
        dr_note(c, "CUDA_VISIBLE_DEVICES=%s", visible);

    int r = d->cuInit(0);
    if (r == DR_CU_ERROR_STUB_LIBRARY) {
        dr_set(c, DR_FAIL, "libcuda.so.1 at %s is the CUDA toolkit's stub library, not the driver",
               d->path);
        dr_fix(c, "remove the toolkit's stubs directory (.../lib64/stubs) from LD_LIBRARY_PATH and "
                  "/etc/ld.so.conf.d (then run ldconfig): it is for linking only; the real "
                  "libcuda.so.1 comes with the NVIDIA driver");
        return;
    }
    if (d->cuDriverGetVersion(&ctx->driver_version) != 0)
        ctx->driver_version = 0;
    dr_fact_int(c, "driver_cuda_version", ctx->driver_version);
    if (r == DR_CU_ERROR_NO_DEVICE) {
        dr_set(c, DR_NA,
               "the NVIDIA driver (CUDA %s) sees no GPU: the cuda backend cannot run "
               "here; freednn uses the cpu backend",
               dr_cuda_version_str(ctx->driver_version, v, sizeof v));
        if (visible != NULL)
            dr_fix(c, "CUDA_VISIBLE_DEVICES=%s hides devices; unset it to see all GPUs", visible);
        dr_fact_int(c, "gpu_count", 0);
        return;
    }
    if (r != 0) {
        dr_set(c, DR_FAIL, "cuInit failed: %s", cu_err(d, r, e, sizeof e));
        if (r == 803) /* CUDA_ERROR_SYSTEM_DRIVER_MISMATCH */
            dr_fix(c, "the user-space driver (libcuda.so.1) and the kernel module differ in "
                      "version: reboot after a driver upgrade, or reinstall so both match");
        else if (r == 101 && visible != NULL) /* CUDA_ERROR_INVALID_DEVICE */
            dr_fix(c, "CUDA_VISIBLE_DEVICES=%s names no existing device; unset or correct it",
                   visible);
        else
            dr_fix(c, "run nvidia-smi: when it fails too, the kernel module is not loaded or the "
                      "device is in a bad state (see dmesg); reinstall the driver or reboot");
        return;
    }

    int n = 0;
    if ((r = d->cuDeviceGetCount(&n)) != 0) {
        dr_set(c, DR_FAIL, "cuDeviceGetCount failed: %s", cu_err(d, r, e, sizeof e));
        dr_fix(c, "run nvidia-smi to see the state of the GPUs; reinstall the driver or reboot");
        return;
    }
    if (n > DR_MAX_GPUS)
        n = DR_MAX_GPUS;
    dr_buf_t devs = {0};
    dr_buf_printf(&devs, "[");
    for (int i = 0; i < n; i++) {
        dr_gpu_t *g = &ctx->gpus[i];
        int dev = 0;
        if ((r = d->cuDeviceGet(&dev, i)) != 0 ||
            (r = d->cuDeviceGetName(g->name, sizeof g->name, dev)) != 0 ||
            (r = d->cuDeviceGetAttribute(&g->cc_major, DR_CU_ATTR_CC_MAJOR, dev)) != 0 ||
            (r = d->cuDeviceGetAttribute(&g->cc_minor, DR_CU_ATTR_CC_MINOR, dev)) != 0 ||
            (r = d->cuDeviceTotalMem(&g->total_mem, dev)) != 0) {
            dr_set(c, DR_FAIL, "querying GPU %d failed: %s", i, cu_err(d, r, e, sizeof e));
            dr_fix(c, "run nvidia-smi to see the state of GPU %d; reset it or reboot", i);
            dr_buf_free(&devs);
            return;
        }
        if (d->cuDeviceGetAttribute(&g->sm_count, DR_CU_ATTR_SM_COUNT, dev) != 0)
            g->sm_count = 0;
        if (d->cuDeviceGetAttribute(&g->mem_clock_khz, DR_CU_ATTR_MEM_CLOCK_KHZ, dev) != 0)
            g->mem_clock_khz = 0;
        if (d->cuDeviceGetAttribute(&g->mem_bus_bits, DR_CU_ATTR_MEM_BUS_BITS, dev) != 0)
            g->mem_bus_bits = 0;
        int ok = g->cc_major >= 8;
        ctx->gpu_sm80_count += ok;
        dr_note(c, "GPU %d: %s, sm_%d%d (compute capability %d.%d), %d SMs, %.1f GiB%s", i, g->name,
                g->cc_major, g->cc_minor, g->cc_major, g->cc_minor, g->sm_count,
                (double)g->total_mem / (1024.0 * 1024.0 * 1024.0),
                ok ? "" : " - below sm_80: freednn's CUDA kernels do not run on it");
        dr_buf_printf(&devs, "%s{\"index\":%d,\"name\":", i ? "," : "", i);
        dr_buf_json_str(&devs, g->name);
        dr_buf_printf(&devs,
                      ",\"compute_capability\":\"%d.%d\",\"sms\":%d,\"total_memory_bytes\":%zu,"
                      "\"usable_by_freednn\":%s}",
                      g->cc_major, g->cc_minor, g->sm_count, g->total_mem, ok ? "true" : "false");
    }
    dr_buf_printf(&devs, "]");
    ctx->gpu_count = n;
    ctx->driver_ok = 1;
    dr_fact_int(c, "gpu_count", n);
    dr_fact_raw(c, "gpus", devs.s);
    dr_buf_free(&devs);

    dr_cuda_version_str(ctx->driver_version, v, sizeof v);
    if (n == 0) {
        dr_set(c, DR_NA, "the NVIDIA driver (CUDA %s) reports no GPU: freednn uses the cpu backend",
               v);
    } else if (ctx->gpu_sm80_count == n) {
        dr_set(c, DR_PASS, "%d GPU%s, all sm_80 or newer; driver supports CUDA %s", n,
               n > 1 ? "s" : "", v);
    } else if (ctx->gpu_sm80_count > 0) {
        dr_set(c, DR_WARN, "%d of %d GPUs are sm_80 or newer; driver supports CUDA %s",
               ctx->gpu_sm80_count, n, v);
        dr_fix(c, "freednn's CUDA kernels need compute capability 8.0+ (Ampere or newer); hide the "
                  "older GPUs with CUDA_VISIBLE_DEVICES");
    } else {
        dr_set(c, DR_WARN,
               "%d GPU%s, none sm_80 or newer: freednn's CUDA kernels need compute "
               "capability 8.0+, so handles get the cpu backend",
               n, n > 1 ? "s" : "");
        dr_fix(c, "the cuda backend needs an Ampere (A100, RTX 30xx) or newer GPU; on this one "
                  "freednn runs on the cpu backend");
    }
}

/* ---- check 2: the CUDA runtime ------------------------------------------------------------- */

void dr_check_cuda_runtime(dr_ctx_t *ctx, dr_check_t *c)
{
    dr_runtime_t *rt = &ctx->rt;
    char rv[32], dv[32], e[512];
    int loaded = load_runtime(rt);
    if (loaded == 0) {
        if (ctx->gpu_count > 0) {
            dr_set(c, DR_FAIL,
                   "no CUDA runtime found (tried libcudart.so.13, .so.12, .so.11.0, .so)");
            dr_fix(c, "install the CUDA runtime (the cuda-cudart package of your CUDA version) and "
                      "put its lib directory on LD_LIBRARY_PATH or in /etc/ld.so.conf.d, then run "
                      "ldconfig");
        } else {
            dr_set(c, DR_NA,
                   "no CUDA runtime found (tried libcudart.so.13, .so.12, .so.11.0, .so); "
                   "the cpu backend does not need one");
        }
        dr_fact_raw(c, "runtime_found", "false");
        return;
    }
    dr_fact_raw(c, "runtime_found", "true");
    dr_fact_str(c, "runtime_path", rt->path);
    if (loaded < 0) {
        dr_set(c, DR_FAIL,
               "%s at %s lacks runtime entry points (cudaRuntimeGetVersion, cudaMalloc, "
               "events, ...)",
               rt->soname, rt->path);
        dr_fix(c,
               "another file named %s comes first on the search path; remove it or reinstall "
               "the CUDA runtime",
               rt->soname);
        return;
    }
    if (rt->cudaRuntimeGetVersion(&ctx->runtime_version) != 0)
        ctx->runtime_version = 0;
    dr_cuda_version_str(ctx->runtime_version, rv, sizeof rv);
    dr_fact_int(c, "runtime_cuda_version", ctx->runtime_version);
    dr_note(c, "runtime: CUDA %s, %s%s%s%s", rv, rt->path, rt->real[0] ? " -> " : "", rt->real,
            rt->already_loaded ? " (the one libfreednn loaded)" : "");
    size_t built = cudnnGetCudartVersion();
    if (built != 0 && (int)built != ctx->runtime_version)
        dr_note(c, "libfreednn was built with CUDA runtime %s",
                dr_cuda_version_str((int)built, dv, sizeof dv));

    if (!ctx->driver_ok) {
        dr_set(c, DR_NA,
               "CUDA runtime %s found (%s); no working driver to run it against (see gpu)", rv,
               rt->soname);
        return;
    }
    dr_cuda_version_str(ctx->driver_version, dv, sizeof dv);
    dr_note(c,
            "driver supports CUDA up to %s (cuDriverGetVersion %d), runtime is CUDA %s "
            "(cudaRuntimeGetVersion %d)",
            dv, ctx->driver_version, rv, ctx->runtime_version);
    int dmaj = ctx->driver_version / 1000, rmaj = ctx->runtime_version / 1000;
    const char *need = min_driver_for(rmaj);
    int r = rt->cudaGetDeviceCount(&ctx->runtime_devices);
    if (r != 0)
        ctx->runtime_devices = 0;
    if (dmaj < rmaj) {
        dr_set(c, DR_FAIL,
               "the driver supports CUDA %s but the runtime is CUDA %s: the runtime "
               "cannot start (cudaErrorInsufficientDriver)",
               dv, rv);
        if (need != NULL)
            dr_fix(c,
                   "upgrade the NVIDIA driver to %s or newer (CUDA %d needs it), or use a CUDA "
                   "%d.x runtime that matches this driver",
                   need, rmaj, dmaj);
        else
            dr_fix(c,
                   "upgrade the NVIDIA driver to one that supports CUDA %s, or use a CUDA %d.x "
                   "runtime that matches this driver",
                   rv, dmaj);
    } else if (r != 0 && !(r == 100 && ctx->gpu_count == 0)) { /* 100: cudaErrorNoDevice */
        dr_set(c, DR_FAIL, "the runtime cannot use the GPUs: cudaGetDeviceCount: %s",
               rt_err(rt, r, e, sizeof e));
        dr_fix(c, "run nvidia-smi; check that the driver and runtime versions above are compatible "
                  "and that no process holds the GPUs in exclusive mode");
    } else if (ctx->driver_version < ctx->runtime_version) {
        dr_set(c, DR_WARN,
               "the driver supports CUDA %s, older than the runtime's %s: runs through "
               "minor-version compatibility, without PTX JIT or newer driver features",
               dv, rv);
        dr_fix(c, "upgrade the NVIDIA driver to one that supports CUDA %s for full compatibility",
               rv);
    } else {
        dr_set(c, DR_PASS,
               "CUDA runtime %s with a driver that supports CUDA %s (driver >= runtime); "
               "the runtime sees %d GPU%s",
               rv, dv, ctx->runtime_devices, ctx->runtime_devices == 1 ? "" : "s");
    }
}

/* ---- check 5: bandwidth -------------------------------------------------------------------- */

static void host_bandwidth(dr_check_t *c)
{
    const size_t bytes = (size_t)64 << 20;
    char *a = malloc(bytes), *b = malloc(bytes);
    if (a == NULL || b == NULL) {
        free(a), free(b);
        dr_set(c, DR_NA,
               "no GPU: device memory bandwidth not measured (and no 128 MiB of host "
               "memory for the host figure)");
        return;
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    volatile char sink = 0;
    double best = 1e30;
    for (int rep = 0; rep < 6; rep++) {
        double t0 = dr_seconds();
        memcpy(rep & 1 ? a : b, rep & 1 ? b : a, bytes);
        double t = dr_seconds() - t0;
        sink += (rep & 1 ? a : b)[rep * 4099]; /* the copy is used: it cannot be elided */
        if (rep > 0 && t < best)
            best = t;
    }
    (void)sink;
    free(a), free(b);
    double gbs = (double)bytes / best * 1e-9;
    dr_set(c, DR_NA,
           "no GPU: device memory bandwidth not measured; host memory (memcpy, one "
           "thread): %.1f GB/s copied, %.1f GB/s of read+write traffic",
           gbs, 2 * gbs);
    dr_note(c, "host figure: best of 5 memcpy of 64 MiB; reported, not judged (a single thread "
               "rarely reaches the memory system's peak)");
    dr_fact_num(c, "host_memcpy_gbs", gbs);
}

#define RT_TRY(call)                                                                               \
    do {                                                                                           \
        int r_ = (call);                                                                           \
        if (r_ != 0) {                                                                             \
            dr_set(c, DR_FAIL, "GPU %d: %s failed: %s", dev, #call, rt_err(rt, r_, e, sizeof e));  \
            dr_fix(c, "run nvidia-smi: another process may hold the GPU's memory, or the GPU is "  \
                      "in a bad state (see dmesg)");                                               \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* Times `reps` copies (after one warm-up) between the event pair into *ms; returns the first
 * cudaError_t that is not cudaSuccess, or 0. */
static int time_copies(dr_runtime_t *rt, void *dst, const void *src, size_t bytes, int kind,
                       int reps, void *ev0, void *ev1, float *ms)
{
    int r;
    if ((r = rt->cudaMemcpy(dst, src, bytes, kind)) != 0) /* warm-up */
        return r;
    if ((r = rt->cudaEventRecord(ev0, NULL)) != 0)
        return r;
    for (int i = 0; i < reps; i++)
        if ((r = rt->cudaMemcpy(dst, src, bytes, kind)) != 0)
            return r;
    if ((r = rt->cudaEventRecord(ev1, NULL)) != 0 || (r = rt->cudaEventSynchronize(ev1)) != 0)
        return r;
    return rt->cudaEventElapsedTime(ms, ev0, ev1);
}

void dr_check_bandwidth(dr_ctx_t *ctx, dr_check_t *c)
{
    dr_runtime_t *rt = &ctx->rt;
    if (rt->lib == NULL || ctx->runtime_devices <= 0 || ctx->gpu_count <= 0) {
        host_bandwidth(c);
        return;
    }
    char e[512];
    int n = ctx->runtime_devices < ctx->gpu_count ? ctx->runtime_devices : ctx->gpu_count;
    int slow = 0;
    dr_buf_t js = {0};
    dr_buf_printf(&js, "[");
    dr_set(c, DR_PASS, "device memory bandwidth measured on %d GPU%s", n, n > 1 ? "s" : "");
    for (int dev = 0; dev < n; dev++) {
        const dr_gpu_t *g = &ctx->gpus[dev];
        void *a = NULL, *b = NULL, *h = NULL, *ev0 = NULL, *ev1 = NULL;
        size_t bytes = (size_t)256 << 20, hbytes = (size_t)64 << 20;
        while (bytes > ((size_t)1 << 20) && 4 * bytes > g->total_mem)
            bytes /= 2;
        float d2d = 0, h2d = 0, d2h = 0;
        const int reps = 40, hreps = 10;
        RT_TRY(rt->cudaSetDevice(dev));
        RT_TRY(rt->cudaMalloc(&a, bytes));
        RT_TRY(rt->cudaMalloc(&b, bytes));
        RT_TRY(rt->cudaMallocHost(&h, hbytes));
        memset(h, 0, hbytes);
        RT_TRY(rt->cudaEventCreate(&ev0));
        RT_TRY(rt->cudaEventCreate(&ev1));
        RT_TRY(time_copies(rt, b, a, bytes, DR_CUDA_MEMCPY_D2D, reps, ev0, ev1, &d2d));
        RT_TRY(time_copies(rt, a, h, hbytes, DR_CUDA_MEMCPY_H2D, hreps, ev0, ev1, &h2d));
        RT_TRY(time_copies(rt, h, a, hbytes, DR_CUDA_MEMCPY_D2H, hreps, ev0, ev1, &d2h));
        {
            double copy = (double)bytes * reps / (d2d * 1e-3) * 1e-9;
            double up = (double)hbytes * hreps / (h2d * 1e-3) * 1e-9;
            double down = (double)hbytes * hreps / (d2h * 1e-3) * 1e-9;
            double peak = 2.0 * g->mem_clock_khz * 1e3 * (g->mem_bus_bits / 8.0) * 1e-9;
            char frac[128] = "";
            if (peak > 0) {
                snprintf(frac, sizeof frac,
                         ", %.0f%% of the %.0f GB/s peak (memory clock x bus width)",
                         100.0 * 2 * copy / peak, peak);
                if (2 * copy < 0.4 * peak)
                    slow++;
            }
            dr_note(c,
                    "GPU %d: device-to-device %.0f GB/s of read+write traffic (%.0f GB/s copied)%s",
                    dev, 2 * copy, copy, frac);
            dr_note(c,
                    "GPU %d: host-to-device %.1f GB/s, device-to-host %.1f GB/s (pinned, 64 MiB)",
                    dev, up, down);
            dr_buf_printf(
                &js,
                "%s{\"index\":%d,\"d2d_traffic_gbs\":%.1f,\"h2d_gbs\":%.1f,\"d2h_gbs\":%.1f,"
                "\"peak_gbs\":%.1f}",
                dev ? "," : "", dev, 2 * copy, up, down, peak);
        }
    cleanup:
        if (ev0)
            rt->cudaEventDestroy(ev0);
        if (ev1)
            rt->cudaEventDestroy(ev1);
        if (h)
            rt->cudaFreeHost(h);
        if (a)
            rt->cudaFree(a);
        if (b)
            rt->cudaFree(b);
        if (c->status == DR_FAIL)
            break;
    }
    dr_buf_printf(&js, "]");
    dr_fact_raw(c, "gpus", js.s);
    dr_buf_free(&js);
    if (c->status != DR_FAIL && slow > 0) {
        dr_set(c, DR_WARN,
               "%d of %d GPUs reach under 40%% of their memory bandwidth peak in a "
               "device-to-device copy",
               slow, n);
        dr_fix(c, "check nvidia-smi for other processes on the GPU, clocks held low (nvidia-smi "
                  "-q -d CLOCK,PERFORMANCE) or thermal throttling");
    }
}
