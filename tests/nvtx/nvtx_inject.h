/* SPDX-License-Identifier: MIT */
/*
 * nvtx_inject.h - what the test's NVTX injection library (nvtx_inject.c) records and how the
 * test program (nvtx_ranges.c) reads it back: the program dlopens the same file NVTX loaded
 * (the loader hands back the one copy) and looks these functions up by name.
 */
#ifndef FD_TESTS_NVTX_INJECT_H_
#define FD_TESTS_NVTX_INJECT_H_

typedef struct fd_nvtx_event {
    int push;        /* 1 for a range push, 0 for a pop */
    int registered;  /* push: the name came as a registered string handle */
    char domain[32]; /* the domain's name, "" for the default domain */
    char name[96];   /* push: the range's message */
} fd_nvtx_event_t;

/* Events recorded so far (a fixed log; overflow is counted, not stored). */
typedef int (*fd_nvtx_inject_count_fn)(int *dropped);
typedef const fd_nvtx_event_t *(*fd_nvtx_inject_events_fn)(void);
/* 1 once NVTX called InitializeInjectionNvtx2 and the callbacks were installed. */
typedef int (*fd_nvtx_inject_ready_fn)(void);

#endif /* FD_TESTS_NVTX_INJECT_H_ */
