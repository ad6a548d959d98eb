/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What cpufreq-sysfs.c (attributes, a policy's directory) and cpufreq-discover.c (the machine's policies) share;
 * the API is include/topology.h.
 */

#include <sched.h>
#include <stddef.h>

/* SYSFS_CPU_DIR/cpu@cpu/@name into @buf. */
void cpufreq_sysfs_cpu_path(char *buf, size_t size, unsigned cpu, const char *name);
/* SYSFS_CPU_DIR/@name, a CPU list (online, possible: Documentation/ABI/testing/sysfs-devices-system-cpu), into
 * @ret; @fallback when the file is absent. */
int cpufreq_sysfs_read_cpulist(const char *name, const cpu_set_t *fallback, cpu_set_t *ret);
