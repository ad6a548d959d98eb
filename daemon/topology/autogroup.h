/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Whether the running kernel schedules every session's tasks in a task group of its own (autogroup.c): the
 * topology's [system] autogroup (include/topology.h), which cpufreq_discover() sets from it.
 */

#include <stdbool.h>

/* At most this many cgroup directories below the cpu hierarchy's root are looked into (cgroup v1); more count as
 * holding tasks. */
#define AUTOGROUP_WALK_MAX 4096u

/*
 * True when kernel.sched_autogroup_enabled is 1 and no task is in a cpu cgroup other than the root (see
 * autogroup.c for the rule and the kernel behind it). @root: the file system root the fixed paths are read under
 * (/proc/sys/kernel/sched_autogroup_enabled, /sys/fs/cgroup/...): NULL or "" for the machine's own, a directory
 * for tests. Anything that cannot be read gives false (the flat model, as without the key).
 */
bool autogroup_applies(const char *root);
