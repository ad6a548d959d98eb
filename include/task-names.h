/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A bounded table of the tasks (threads) the system runs: pid → tgid, comm. Fed by the proc connector
 * (proc-conn.c: fork adds, exec re-reads the name from /proc, comm updates, exit forgets) and refilled by a
 * scan of /proc when events were lost. Bounded: when full, the least recently used entry is evicted
 * (counted), so a missed exit or a pid flood costs a stale name at worst, never memory.
 *
 * Pure bookkeeping plus /proc reads under a configurable root (tests use a fake tree in a temp dir). No
 * logging above debug.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"
#include "sched-event.h"                       /* TASK_COMM_LEN */

#define TASK_NAMES_DEFAULT_CAPACITY 65536
#define TASK_NAMES_MAX_CAPACITY (UINT32_C(1) << 22)  /* PID_MAX_LIMIT on 64-bit (include/linux/threads.h) */

typedef struct TaskNames TaskNames;

typedef struct TaskName {
        pid_t pid;                      /* the thread id (the kernel's pid) */
        pid_t tgid;                     /* the process id */
        char comm[TASK_COMM_LEN];       /* NUL-terminated; "" when the name could not be learnt */
} TaskName;

typedef struct TaskNamesStats {
        uint64_t size;                  /* entries now */
        uint64_t capacity;
        uint64_t added;                 /* new entries (fork, set, scan) */
        uint64_t updated;               /* existing entries whose tgid or comm changed */
        uint64_t removed;               /* entries forgotten (exit) */
        uint64_t evicted;               /* least recently used entries dropped to make room */
        uint64_t scans;                 /* full /proc scans done */
        uint64_t scan_tasks;            /* tasks the last scan saw */
        uint64_t scan_dropped;          /* entries scans found gone (their exit was missed), total */
        uint64_t comm_read_failures;    /* /proc/…/comm reads that failed (the task was already gone) */
} TaskNamesStats;

/*
 * @proc_root: where procfs is mounted (NULL: "/proc"); @capacity: the bound (0: the default). Allocates
 * lazily (untouched pages cost nothing). Returns 0, -EINVAL (capacity above TASK_NAMES_MAX_CAPACITY) or
 * -ENOMEM. The root need not exist yet: reads under it just fail.
 */
int task_names_new(const char *proc_root, size_t capacity, TaskNames **ret);
TaskNames *task_names_free(TaskNames *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(TaskNames *, task_names_free);

/* Copies the entry of @pid into @ret (and marks it recently used). Returns 0, -ENOENT, -EINVAL. */
int task_names_lookup(TaskNames *t, pid_t pid, TaskName *ret);
/* @pid's name read from /proc now (its tgid left 0), the table unchanged: where no proc connector feeds it. */
int task_names_read(TaskNames *t, pid_t pid, TaskName *ret);

/* Adds or updates @pid with @tgid and @comm (truncated to 15 bytes). Returns 0 or -EINVAL. */
int task_names_set(TaskNames *t, pid_t pid, pid_t tgid, const char *comm);

/*
 * A task was forked (the proc connector's fork event: the child is @pid/@tgid, its real parent
 * @parent_pid). The child inherits the name of the task that created it: for a thread (pid != tgid) the
 * name of its thread group leader, for a process the parent's; when that one is not known, the name is
 * read from /proc/TGID/task/PID/comm. Returns 0, -ENOENT (name unknown and the task already gone: nothing
 * added), -EINVAL.
 */
int task_names_fork(TaskNames *t, pid_t parent_pid, pid_t pid, pid_t tgid);

/*
 * @pid (of @tgid) exec'd: the event carries no name, so it is read from /proc/PID/comm (the new program's).
 * Returns 0, -ENOENT (the task is gone; any entry for it is forgotten), -EINVAL.
 */
int task_names_exec(TaskNames *t, pid_t pid, pid_t tgid);

/* Forgets @pid (exit). Returns true if it was known. */
bool task_names_forget(TaskNames *t, pid_t pid);

/*
 * Rebuilds the table from /proc: every /proc/TGID/task/TID/comm (or /proc/PID/comm where a process has no
 * task directory), then drops the entries the scan did not see (tasks whose exit was missed). Tasks that
 * vanish during the scan are skipped. Returns the number of tasks seen, or -errno if the root cannot be
 * read (the table is left as it was).
 */
int task_names_rescan(TaskNames *t);

/*
 * Calls @cb for every entry, most recently used first; a negative return stops and is returned. @cb must not
 * change the table (no set, forget or lookup: a lookup reorders it).
 */
int task_names_foreach(TaskNames *t, int (*cb)(const TaskName *n, void *userdata), void *userdata);

size_t task_names_size(const TaskNames *t);
const TaskNamesStats *task_names_stats(const TaskNames *t);

