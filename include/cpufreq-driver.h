/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What schedfreqd knows of cpufreq drivers by name (scaling_driver), in one table: which are setpolicy drivers
 * (no frequency to set: only the "performance powersave" pseudo-governors), which let any CPU change a policy's
 * frequency (policy->dvfs_possible_from_any_cpu), and how to get the userspace governor where it is missing.
 * A driver not in the table is an ordinary ->target driver whose frequency only its own CPUs may program.
 */

#include <stdbool.h>

/* intel_pstate (active mode), amd-pstate-epp: ->setpolicy and no ->target (drivers/cpufreq/cpufreq.c). */
bool cpufreq_driver_is_setpolicy(const char *driver);
/* It sets policy->dvfs_possible_from_any_cpu (reference §5.3): one clock or firmware channel any CPU programs. */
bool cpufreq_driver_allows_remote(const char *driver);
/* What to do for a policy of @driver without the userspace governor: one sentence, never NULL. */
const char *cpufreq_driver_userspace_hint(const char *driver);
