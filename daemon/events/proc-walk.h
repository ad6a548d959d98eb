/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The tasks under a /proc tree, walked the one way task-names.c (their names) and proc-sessions.c (their
 * sessions) both need: each process (a numeric entry of the root), then each of its threads (TGID/task/TID).
 */

#include <stdint.h>

/*
 * A thread @tid of process @tgid; @dir_fd is the directory @tid's own entries are under (TGID/task, or the root for
 * a process without task/: a fake tree or a very old kernel, where @tid is @tgid). Returns > 0 to count it, 0 not
 * to, < 0 to stop the walk with that error.
 */
typedef int (*ProcThreadFn)(int dir_fd, int32_t tgid, int32_t tid, void *userdata);

/* Calls @fn for each thread of @tgid under @root_fd; the number counted, 0 for a process gone, or @fn's error. */
int proc_walk_threads(int root_fd, int32_t tgid, ProcThreadFn fn, void *userdata);

/* A process @tgid under @root_fd: returns the number of its tasks it counted, or < 0 to stop the walk. */
typedef int (*ProcProcessFn)(int root_fd, int32_t tgid, void *userdata);

/* Calls @fn for each process under the directory @proc_root; the sum of what it counted, or the first error. */
int proc_walk_processes(const char *proc_root, ProcProcessFn fn, void *userdata);
