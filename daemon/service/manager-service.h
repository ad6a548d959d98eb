/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

#include "governed.h"
#include "latency.h"

typedef struct ProcConn ProcConn;
typedef struct TaskNames TaskNames;

/* The event loop SCHED_FIFO at @priority (0: SCHED_OTHER); a refusal is a warning, not an error. */
void manager_apply_realtime(int priority);
/* STATUS= (after @extra, e.g. "READY=1\n") for `systemctl status`: what is governed, how the loop runs. */
void manager_notify_status(const Governed *g, const char *extra);
/* Logs the run's statistics (info level), at exit: the source's and the engine's counts, @commits frequency writes,
 * the proc connector's (NULL: unavailable) and @latency's. */
void manager_log_stats(const Governed *g, uint64_t commits, const LatencyStats *latency, ProcConn *proc,
                       TaskNames *names);
