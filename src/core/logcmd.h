/* SPDX-License-Identifier: MIT */
/*
 * logcmd.h - FREEDNN_LOG_CMD=1 (DESIGN D10): one dnnbench command line on stderr per compute
 * call, which re-runs that call's problem through tools/dnnbench.
 */
#ifndef FD_CORE_LOGCMD_H_
#define FD_CORE_LOGCMD_H_

#include "conv.h"

/* Writes "freednn: dnnbench --op=conv --dir=... PROBLEM" for `p` run with `algo` on `backend`,
 * when FREEDNN_LOG_CMD is set to a non-zero number; nothing otherwise. What the line cannot
 * express (odd strides, 3-d, an accumulation type dnnbench does not use) follows it as a shell
 * comment, so the line can still be pasted as it is. */
void fd_log_cmd_conv(const fd_conv_problem_t *p, int algo, fd_backend_t backend);
/* The same line whatever FREEDNN_LOG_CMD says (the caller has read it). */
void fd_log_cmd_conv_line(const fd_conv_problem_t *p, int algo, fd_backend_t backend);

#endif /* FD_CORE_LOGCMD_H_ */
