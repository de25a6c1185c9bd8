/* SPDX-License-Identifier: MIT */
/*
 * nvtx_inject.c - a minimal NVTX v3 injection library for the test nvtx/ranges: NVTX loads it
 * from NVTX_INJECTION64_PATH on the first NVTX call and calls InitializeInjectionNvtx2, which
 * installs the domain callbacks (create, register string, push, pop, destroy) of the CORE2 module
 * and records every push and pop in a fixed log. It does what Nsight Systems' injection does
 * for ranges, without a GPU, so the test can prove freednn emits them.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>

#include "nvtx_inject.h"

#define LOG_MAX 4096
#define DOMAINS_MAX 8
#define STRINGS_MAX 1024

struct nvtxDomainRegistration_st {
    char name[32];
};
struct nvtxStringRegistration_st {
    char text[96];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvtxDomainRegistration_st domains[DOMAINS_MAX];
static int n_domains;
static struct nvtxStringRegistration_st strings[STRINGS_MAX];
static int n_strings;
static fd_nvtx_event_t events[LOG_MAX];
static int n_events, n_dropped, ready;

static void record(int push, nvtxDomainHandle_t domain, const char *name, int registered)
{
    pthread_mutex_lock(&lock);
    if (n_events < LOG_MAX) {
        fd_nvtx_event_t *e = &events[n_events++];
        memset(e, 0, sizeof *e);
        e->push = push;
        e->registered = registered;
        if (domain != NULL)
            snprintf(e->domain, sizeof e->domain, "%s", domain->name);
        if (name != NULL)
            snprintf(e->name, sizeof e->name, "%s", name);
    } else {
        n_dropped++;
    }
    pthread_mutex_unlock(&lock);
}

static nvtxDomainHandle_t domain_create(const char *name)
{
    nvtxDomainHandle_t d = NULL;
    pthread_mutex_lock(&lock);
    if (n_domains < DOMAINS_MAX) {
        d = &domains[n_domains++];
        snprintf(d->name, sizeof d->name, "%s", name != NULL ? name : "");
    }
    pthread_mutex_unlock(&lock);
    return d;
}

static void domain_destroy(nvtxDomainHandle_t d)
{
    (void)d; /* the slots live as long as the process */
}

static nvtxStringHandle_t register_string(nvtxDomainHandle_t d, const char *text)
{
    (void)d;
    nvtxStringHandle_t s = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_strings && s == NULL; i++)
        if (strcmp(strings[i].text, text) == 0)
            s = &strings[i];
    if (s == NULL && n_strings < STRINGS_MAX) {
        s = &strings[n_strings++];
        snprintf(s->text, sizeof s->text, "%s", text);
    }
    pthread_mutex_unlock(&lock);
    return s;
}

static int range_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    const char *name = "(no message)";
    int registered = 0;
    if (a != NULL && a->messageType == NVTX_MESSAGE_TYPE_ASCII)
        name = a->message.ascii;
    else if (a != NULL && a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
        name = a->message.registered->text;
        registered = 1;
    }
    record(1, d, name, registered);
    return 0;
}

static int range_pop(nvtxDomainHandle_t d)
{
    record(0, d, NULL, 0);
    return 0;
}

static int install(NvtxFunctionTable table, unsigned size, int id, NvtxFunctionPointer fn)
{
    if ((unsigned)id >= size || table[id] == NULL)
        return 0;
    *table[id] = fn;
    return 1;
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
    const NvtxExportTableCallbacks *cb =
        (const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS);
    if (cb == NULL || cb->GetModuleFunctionTable == NULL)
        return 0;
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) || table == NULL)
        return 0;
    int ok = install(table, size, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)domain_create) &&
             install(table, size, NVTX_CBID_CORE2_DomainDestroy, (NvtxFunctionPointer)domain_destroy) &&
             install(table, size, NVTX_CBID_CORE2_DomainRegisterStringA,
                     (NvtxFunctionPointer)register_string) &&
             install(table, size, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)range_push) &&
             install(table, size, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)range_pop);
    ready = ok;
    return ok;
}

int fd_nvtx_inject_count(int *dropped)
{
    pthread_mutex_lock(&lock);
    int n = n_events;
    if (dropped != NULL)
        *dropped = n_dropped;
    pthread_mutex_unlock(&lock);
    return n;
}

const fd_nvtx_event_t *fd_nvtx_inject_events(void)
{
    return events;
}

int fd_nvtx_inject_ready(void)
{
    return ready;
}
