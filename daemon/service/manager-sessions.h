/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Sessions in the live daemon, for the model's task groups (docs/fidelity.md, difference 12): with autogroup
 * (the topology's [system] autogroup, which discovery sets where the kernel groups tasks by session) every
 * session's tasks share a task group, and the model needs each task's session, which the sched events do not give
 * for the tasks that predate the daemon. They are read from /proc once at start-up; afterwards the proc connector's
 * PROC_EVENT_SID (setsid()) moves a process's threads to their new session's group; forks inherit in the model.
 * Only where the model runs (the perf source, observe without BTF): the bpf source reads the kernel's own signals.
 */

#include <stdbool.h>

#include "events.h"
#include "governed.h"

/* The model runs and groups tasks by session: the source does not decide itself and the topology says
 * autogroup. */
bool manager_sessions_wanted(const Governed *g);

/* Every task's session from @proc_root ("/proc" when NULL) into the engine. The number of tasks, or a negative
 * errno. */
int manager_sessions_scan(const Governed *g, const char *proc_root);

/* A PROC_EVENT_SID: the source drained first (the events before the setsid go to the old group), then every thread
 * of ev->tgid is in session ev->tgid (ksys_setsid(): the caller's tgid) from the event's time. 0 or a negative
 * errno (-ENOMEM). */
int manager_sessions_setsid(const Governed *g, const ProcEvent *ev, const char *proc_root);
