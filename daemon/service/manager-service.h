/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "manager.h"

/* The event loop SCHED_FIFO at @priority (0: SCHED_OTHER); a refusal is a warning, not an error. */
void manager_apply_realtime(int priority);
/* The command line's log level when given, else the config's (at start and after every reload). */
void manager_apply_log_level(Manager *m);
/* STATUS= (after @extra, e.g. "READY=1\n") for `systemctl status`: what is governed, how the loop runs. */
void manager_notify_status(Manager *m, const char *extra);
/* Logs the run's statistics (info level), at exit. */
void manager_log_stats(Manager *m);
