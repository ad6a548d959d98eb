/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * CPU sets in the kernel's list format ("0-3,6", see Documentation/admin-guide/cputopology.rst).
 * We use glibc's cpu_set_t (CPU_SETSIZE = 1024 CPUs), the same bound as the emulator's.
 */

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define CPULIST_MAX_CPUS CPU_SETSIZE

/*
 * Parses "0-3,6" (whitespace around items and a trailing newline allowed; "" is the empty set).
 * Returns 0, or -EINVAL on syntax errors, -ERANGE for a CPU >= CPULIST_MAX_CPUS. @ret is untouched on error.
 */
int cpulist_parse(const char *s, cpu_set_t *ret);

/* Formats as the kernel does: ascending, ranges collapsed ("0-3,6"); "" for the empty set.
 * Returns 0, or -ENOBUFS when @size is too small. */
int cpulist_format(const cpu_set_t *set, char *buf, size_t size);

/* First CPU in the set, or -ENOENT when empty. */
int cpulist_first(const cpu_set_t *set);
/* Highest CPU in the set, or -ENOENT when empty. */
int cpulist_last(const cpu_set_t *set);
/* @set without the CPUs of @remove (set difference; cpu_set_t has AND, OR and XOR, not AND NOT). */
void cpulist_subtract(cpu_set_t *set, const cpu_set_t *remove);
