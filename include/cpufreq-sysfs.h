/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Discovery of the live machine's cpufreq policies, read-only: libcpupower for what defines a policy (its CPUs,
 * the governors it offers, its frequency table), plain sysfs for the rest: the policy's single-value
 * attributes, read through one fd of its directory (cpufreq-sysfs.c says why), and what libcpupower lacks
 * (cpuN/cpu_capacity, online/possible, the cpuN/cpufreq -> ../cpufreq/policyM link). Plus the few plain sysfs
 * read/write helpers the actuator shares.
 *
 * Paths are fixed to /sys/devices/system/cpu, as libcpupower's are (tools/power/cpupower/lib/cpupower_intern.h
 * PATH_TO_CPU); a root prefix for tests would split our reads from libcpupower's. Tests bind-mount a tree over
 * that directory in a private mount namespace instead (tests/integration/test-discovery.sh).
 */

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "topology.h"

#define SYSFS_CPU_DIR "/sys/devices/system/cpu"

/* cpuinfo_transition_latency of drivers that do not know it: CPUFREQ_ETERNAL (include/linux/cpufreq.h), (-1)
 * printed with "%u". */
#define CPUFREQ_ETERNAL_LATENCY 4294967295UL

struct cpufreq_affected_cpus;
struct cpufreq_available_governors;

/*
 * Builds the topology of the live machine: one policy per cpufreq policy that has at least one online CPU, in
 * the order of their ids. Returns 0; -ENODEV when no online CPU has cpufreq (no driver loaded); another negative
 * errno when a policy cannot be read (details at debug level).
 */
int cpufreq_discover(Topology **ret);

/* The CPU through which libcpupower reaches @p: its first online CPU that has a cpuN/cpufreq directory.
 * -ENODEV when there is none (all of the policy's CPUs are offline). */
int cpufreq_sysfs_policy_cpu(const PolicyDesc *p, unsigned *ret_cpu);

/* The directory holding @p's attributes (malloc'd): cpufreq/policyN when it exists (kernels since about 2015),
 * else cpuM/cpufreq of cpufreq_sysfs_policy_cpu(). */
int cpufreq_sysfs_policy_dir(const PolicyDesc *p, char **ret);

/* Both of the above as cpufreq_discover() found them, without a sysfs access: for the take-over at start-up,
 * which follows discovery. -ENODATA when @p does not come from discovery (a topology file). */
int cpufreq_sysfs_policy_locate(const PolicyDesc *p, unsigned *ret_cpu, char **ret_dir);

/* Plain sysfs I/O shared with the actuator. All return 0 or a negative errno. */

/* Reads @path into @buf (NUL-terminated, trailing newline removed). -EFBIG when it does not fit. */
int cpufreq_sysfs_read(const char *path, char *buf, size_t size);
/* Reads one decimal u32. -EINVAL when the file holds anything else ("<unsupported>" in scaling_setspeed). */
int cpufreq_sysfs_read_u32(const char *path, uint32_t *ret);
/* The same for @name relative to the directory fd @dir_fd (openat(2); AT_FDCWD: a path). */
int cpufreq_sysfs_read_at(int dir_fd, const char *name, char *buf, size_t size);
int cpufreq_sysfs_read_u32_at(int dir_fd, const char *name, uint32_t *ret);
/* Opens @path O_WRONLY|O_TRUNC (sysfs ignores the truncation, plain files need it) and writes @value in one
 * write(2), as the kernel's store() expects. -EIO on a short write. */
int cpufreq_sysfs_write(const char *path, const char *value);

/* Pure helpers, exported for the unit tests. */

/* The policy number from a cpuN/cpufreq link target ("../cpufreq/policy4" -> 4). -EINVAL for anything else
 * (the legacy "../cpu0/cpufreq"). */
int cpufreq_sysfs_parse_policy_link(const char *target, unsigned *ret_id);
/* libcpupower's CPU list -> cpu_set_t. -ERANGE for a CPU >= CPU_SETSIZE. NULL gives the empty set. */
int cpufreq_sysfs_cpus_from_list(const struct cpufreq_affected_cpus *list, cpu_set_t *ret);
/* Space-separated governor names into @buf. -ENOBUFS when they do not fit. NULL gives "". */
int cpufreq_sysfs_join_governors(const struct cpufreq_available_governors *list, char *buf, size_t size);
/* Sorts @khz ascending, drops duplicates and entries outside [min_khz, max_khz]; returns the new count. */
size_t cpufreq_sysfs_normalize_table(uint32_t *khz, size_t n, uint32_t min_khz, uint32_t max_khz);
