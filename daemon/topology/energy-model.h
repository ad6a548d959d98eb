/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The Energy Model's inefficient performance states of a cpufreq policy, read from debugfs (energy-model.c):
 * what the kernel installed in the policy's frequency table as CPUFREQ_INEFFICIENT_FREQ and schedutil skips
 * (include/topology.h, inefficient_khz; policy_resolve_khz()).
 */

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define ENERGY_MODEL_DEBUGFS_DIR "/sys/kernel/debug/energy_model"

/*
 * The entries of @table_khz (ascending, @n_table of them) that the Energy Model of the performance domain
 * spanning @cpus marks inefficient, read under @dir (ENERGY_MODEL_DEBUGFS_DIR; tests give another). *@ret_khz is
 * malloc'd and ascending, or NULL with *@ret_n 0 when there are none. No EM is not an error: @dir absent or
 * unreadable (debugfs not mounted, not root), no domain for @cpus, or a domain whose files cannot be read all
 * give 0 and none. Returns 0 or -ENOMEM.
 */
int energy_model_inefficient_khz(const char *dir, const cpu_set_t *cpus, const uint32_t *table_khz, size_t n_table,
                                 uint32_t **ret_khz, size_t *ret_n);
