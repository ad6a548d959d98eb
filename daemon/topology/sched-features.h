/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Whether the running kernel's fair class keeps a task that sleeps before it is eligible queued (EEVDF's delayed
 * dequeue, sched-features.c): the topology's [system] delayed_dequeue (include/topology.h), which cpufreq_discover()
 * sets from it.
 */

#include <stdbool.h>

/*
 * True when the kernel has DELAY_DEQUEUE on: debugfs' sched/features names it (NO_DELAY_DEQUEUE: turned off), else
 * the release (/proc/sys/kernel/osrelease) is 6.12 or later. @root: the file system root those paths are read under,
 * NULL or "" for the machine's own, a directory for tests. A release that cannot be read gives true (the model's
 * default, as without the key).
 */
bool sched_delays_dequeue(const char *root);

/* The part that reads no file: @features the text of sched/features (NULL: not readable), @release osrelease's
 * (NULL: not readable). */
bool sched_delays_dequeue_from(const char *features, const char *release);
