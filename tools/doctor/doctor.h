/* SPDX-License-Identifier: MIT */
/*
 * doctor.h - freednn-doctor's shared types: a check (status, one-line detail, notes, fix and
 * machine-readable facts), the growing string buffer the report is built from, the CUDA driver
 * and runtime entry points it reaches through dlopen (it never links them), and the context the
 * checks share. docs/doctor.md is the manual.
 */
#ifndef FD_DOCTOR_H_
#define FD_DOCTOR_H_

#include <stddef.h>

/* Severity order: the summary and the exit status are computed from it. */
typedef enum {
    DR_PASS = 0, /* the check ran and found nothing wrong */
    DR_NA,       /* does not apply to this machine (no GPU, nothing installed): not a failure */
    DR_WARN,     /* works, but something deserves attention (shadowing, slow memory, unused GPU) */
    DR_FAIL,     /* broken: the fix line says what to do */
    DR_STATUS_COUNT
} dr_status_t;

const char *dr_status_name(dr_status_t s);

/* A growing, always NUL-terminated string. */
typedef struct {
    char *s;
    size_t len, cap;
} dr_buf_t;

void dr_buf_printf(dr_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dr_buf_json_str(dr_buf_t *b, const char *s); /* a JSON string literal, quotes included */
void dr_buf_free(dr_buf_t *b);

typedef struct {
    const char *name;  /* stable identifier: "gpu", "cuda_runtime", ... */
    const char *title; /* what it checks, for --help */
    dr_status_t status;
    char *detail;   /* the one-line result */
    dr_buf_t notes; /* indented lines, '\n'-separated */
    dr_buf_t fix;   /* what to do, '\n'-separated lines; empty when nothing */
    dr_buf_t facts; /* JSON members ("key":value,...) for --json */
} dr_check_t;

void dr_set(dr_check_t *c, dr_status_t s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void dr_note(dr_check_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dr_fix(dr_check_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dr_fact_str(dr_check_t *c, const char *key, const char *value); /* NULL gives null */
void dr_fact_num(dr_check_t *c, const char *key, double value);
void dr_fact_int(dr_check_t *c, const char *key, long long value);
void dr_fact_raw(dr_check_t *c, const char *key, const char *json); /* already JSON */

/* ---- the CUDA driver and runtime, through dlopen ----------------------------------------- */

enum {
    DR_CU_ATTR_CC_MAJOR = 75, /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
    DR_CU_ATTR_CC_MINOR = 76,
    DR_CU_ATTR_SM_COUNT = 16,      /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
    DR_CU_ATTR_MEM_CLOCK_KHZ = 36, /* CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE */
    DR_CU_ATTR_MEM_BUS_BITS = 37,  /* CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH */
    DR_CU_ATTR_PCI_BUS_ID = 33,
    DR_CU_ERROR_STUB_LIBRARY = 34, /* CUDA_ERROR_STUB_LIBRARY */
    DR_CU_ERROR_NO_DEVICE = 100,   /* CUDA_ERROR_NO_DEVICE */
    DR_CUDA_MEMCPY_H2D = 1,        /* cudaMemcpyKind */
    DR_CUDA_MEMCPY_D2H = 2,
    DR_CUDA_MEMCPY_D2D = 3,
};

typedef struct {
    void *lib;       /* libcuda.so.1, or NULL */
    char path[4096]; /* where ld.so found it */
    char real[4096]; /* its real path when that differs, else "" */
    char why[512];   /* dlerror() when it did not load */
    int (*cuInit)(unsigned);
    int (*cuDriverGetVersion)(int *);
    int (*cuDeviceGetCount)(int *);
    int (*cuDeviceGet)(int *, int);
    int (*cuDeviceGetName)(char *, int, int);
    int (*cuDeviceGetAttribute)(int *, int, int);
    int (*cuDeviceTotalMem)(size_t *, int);
    int (*cuGetErrorName)(int, const char **);
    int (*cuGetErrorString)(int, const char **);
} dr_driver_t;

typedef struct {
    void *lib; /* libcudart, or NULL */
    char soname[64];
    char path[4096];
    char real[4096];
    int already_loaded; /* libfreednn had loaded it before the doctor asked */
    int (*cudaRuntimeGetVersion)(int *);
    int (*cudaDriverGetVersion)(int *);
    int (*cudaGetDeviceCount)(int *);
    const char *(*cudaGetErrorName)(int);
    const char *(*cudaGetErrorString)(int);
    int (*cudaSetDevice)(int);
    int (*cudaMalloc)(void **, size_t);
    int (*cudaFree)(void *);
    int (*cudaMallocHost)(void **, size_t);
    int (*cudaFreeHost)(void *);
    int (*cudaMemcpy)(void *, const void *, size_t, int);
    int (*cudaDeviceSynchronize)(void);
    int (*cudaEventCreate)(void **);
    int (*cudaEventDestroy)(void *);
    int (*cudaEventRecord)(void *, void *);
    int (*cudaEventSynchronize)(void *);
    int (*cudaEventElapsedTime)(float *, void *, void *);
} dr_runtime_t;

#define DR_MAX_GPUS 64

typedef struct {
    char name[256];
    int cc_major, cc_minor, sm_count;
    size_t total_mem;
    int mem_clock_khz, mem_bus_bits; /* 0 when the driver does not say */
} dr_gpu_t;

/* What earlier checks learned, for the later ones. */
typedef struct {
    dr_driver_t drv;
    dr_runtime_t rt;
    int driver_ok;       /* cuInit succeeded */
    int driver_version;  /* cuDriverGetVersion, 0 when unknown */
    int runtime_version; /* cudaRuntimeGetVersion, 0 when unknown */
    int runtime_devices; /* cudaGetDeviceCount through the runtime, 0 on error */
    int gpu_count;
    int gpu_sm80_count; /* devices freednn's CUDA kernels can run on */
    dr_gpu_t gpus[DR_MAX_GPUS];
    int cuda_backend_ok; /* freednnCreateWithBackend(CUDA) succeeded */
} dr_ctx_t;

/* "13.0" from 13000 (the CUDA driver and runtime encoding, major * 1000 + minor * 10). */
const char *dr_cuda_version_str(int v, char *buf, size_t size);
double dr_seconds(void);

/* The checks, in report order. */
void dr_check_gpu(dr_ctx_t *ctx, dr_check_t *c);          /* cuda.c */
void dr_check_cuda_runtime(dr_ctx_t *ctx, dr_check_t *c); /* cuda.c */
void dr_check_libcudnn(dr_ctx_t *ctx, dr_check_t *c);     /* loader.c */
void dr_check_backend(dr_ctx_t *ctx, dr_check_t *c);      /* library.c */
void dr_check_cpu_blas(dr_ctx_t *ctx, dr_check_t *c);
void dr_check_bandwidth(dr_ctx_t *ctx, dr_check_t *c);    /* cuda.c */
void dr_check_smoke_conv(dr_ctx_t *ctx, dr_check_t *c);   /* library.c */
void dr_check_library(dr_ctx_t *ctx, dr_check_t *c);      /* library.c */

#endif /* FD_DOCTOR_H_ */
