/* SPDX-License-Identifier: MIT */
/*
 * logcmd.h - FREEDNN_LOG_CMD=1 (DESIGN D10): one dnnbench command line on stderr per compute
 * call, which re-runs that call's problem through tools/dnnbench.
 */
#ifndef FD_CORE_LOGCMD_H_
#define FD_CORE_LOGCMD_H_

#include "conv.h"

/* Writes "freednn: dnnbench --op=conv --dir=... PROBLEM" for `p` run with `algo` on `backend`
 * to stderr; the caller asks FREEDNN_LOG_CMD first (fd_env_log_flags). What the line cannot
 * express (odd strides, 3-d, an accumulation type dnnbench does not use) follows it as a shell
 * comment, so the line can still be pasted as it is. */
void fd_log_cmd_conv(const fd_conv_problem_t *p, int algo, fd_backend_t backend);

#endif /* FD_CORE_LOGCMD_H_ */
