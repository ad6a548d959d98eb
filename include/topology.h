/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The topology description: the machine's cpufreq policies in the INI format that `schedfreqd topology`
 * prints and that `schedfreqd replay --topology` and the cpufreq emulator read (docs/architecture.md).
 *
 *   [system]                      optional
 *   online = 0-3                  CPUs online (default: every CPU of every policy)
 *   possible = 0-7                CPUs possible/present (default: 0..highest CPU of any policy)
 *   autogroup = yes               optional: kernel.sched_autogroup_enabled (default no): every session's tasks
 *                                 share a task group, whose cfs_rq a new task's initial util comes from
 *
 *   [policy0]                     one section per policy; N is the policy number (its first CPU by convention)
 *   cpus = 0-3                    related_cpus (all CPUs of the policy, offline ones included)
 *   driver = cpufreq-dt           scaling_driver
 *   cpuinfo_min_khz = 500000
 *   cpuinfo_max_khz = 2000000
 *   scaling_min_khz = 500000      default cpuinfo_min_khz
 *   scaling_max_khz = 2000000     default cpuinfo_max_khz
 *   frequencies_khz = 500000 1000000 2000000   optional; absent = continuous (intel_cpufreq, cppc)
 *   inefficient_khz = 1000000     optional, needs frequencies_khz: the entries of the table the Energy Model
 *                                 marked inefficient (CPUFREQ_INEFFICIENT_FREQ: a higher OPP costs no more
 *                                 energy per unit of work), which schedutil skips where it can; each must be
 *                                 an entry of frequencies_khz. Discovery reads it from debugfs energy_model/
 *                                 (energy-model.h); absent = none (no EM, or debugfs not readable).
 *   capacity = 1024               optional: cpuN/cpu_capacity of every CPU of the policy; 0/absent = no file
 *   transition_latency_ns = 100000  cpuinfo_transition_latency; default 1000000 (CPUFREQ_DEFAULT_TRANSITION_LATENCY_NS)
 *   governor = schedutil          optional: current scaling_governor
 *   governors = conservative ondemand userspace powersave performance schedutil   optional: available ones
 *                                 (default: "performance powersave" for setpolicy drivers intel_pstate and
 *                                 amd-pstate-epp, otherwise the six above)
 *   cur_khz = 2000000             optional: current frequency (default: scaling_max_khz)
 *   rate_limit_us = 2000          optional: schedutil's rate_limit_us (0..4294967295), only with
 *                                 governor = schedutil: what the kernel's tunable held when the topology was
 *                                 read. The daemon (and replay) use it as the policy's rate limit unless the
 *                                 config sets one; without it they compute the kernel's default from
 *                                 transition_latency_ns. The emulator starts its schedutil tunable with it.
 *
 * Unknown keys and bad values are errors reported as "FILE:LINE: reason".
 */

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TOPOLOGY_DRIVER_MAX 64
#define TOPOLOGY_GOVERNOR_MAX 32
#define TOPOLOGY_GOVERNORS_MAX 256
#define TOPOLOGY_DEFAULT_LATENCY_NS UINT64_C(1000000)
#define CAPACITY_SCALE 1024u /* SCHED_CAPACITY_SCALE, include/linux/sched.h */

typedef struct PolicyDesc {
        unsigned id;                   /* N of [policyN] / cpufreq/policyN */
        cpu_set_t cpus;                /* related_cpus */
        char driver[TOPOLOGY_DRIVER_MAX];
        uint32_t cpuinfo_min_khz, cpuinfo_max_khz;
        uint32_t scaling_min_khz, scaling_max_khz;
        uint32_t *frequencies_khz;     /* ascending, no duplicates; NULL when continuous */
        size_t n_frequencies;
        uint32_t *inefficient_khz;     /* ascending entries of frequencies_khz the EM marked inefficient; NULL: none */
        size_t n_inefficient;
        unsigned capacity;             /* 0 = no cpu_capacity file (treat as 1024) */
        uint64_t transition_latency_ns;
        char governor[TOPOLOGY_GOVERNOR_MAX];        /* "" = unknown */
        char governors[TOPOLOGY_GOVERNORS_MAX];      /* space separated; "" = unknown */
        uint32_t cur_khz;              /* 0 = unknown */
        bool has_rate_limit;           /* rate_limit_us is known: the governor was schedutil and we read it */
        uint32_t rate_limit_us;        /* schedutil's rate_limit_us tunable (0 is a valid value) */
        /* Where cpufreq_discover() reached the policy on this machine; not part of the format above (a topology
         * read from a file leaves sysfs_found false). The take-over that follows discovery at start-up uses
         * them instead of looking again (cpufreq_sysfs_policy_locate()). */
        bool sysfs_found;
        bool sysfs_policy_dir;         /* attributes in cpufreq/policyN; else in sysfs_cpu's legacy cpuM/cpufreq */
        unsigned sysfs_cpu;            /* the CPU libcpupower reads the policy through */
} PolicyDesc;

typedef struct Topology {
        PolicyDesc *policies;          /* sorted by id */
        size_t n_policies;
        cpu_set_t online;
        cpu_set_t possible;
        bool autogroup;                /* [system] autogroup: kernel.sched_autogroup_enabled */
} Topology;

Topology *topology_free(Topology *t);
static inline void topology_freep(Topology **t) {
        if (*t)
                topology_free(*t);
}

/* Allocates an empty topology. */
int topology_new(Topology **ret);
/* Appends a policy (copying @p, including its frequency tables) and keeps the array sorted by id. */
int topology_add_policy(Topology *t, const PolicyDesc *p);
/* *@ret = a copy of @p that owns copies of its frequency tables; -ENOMEM (then *@ret is untouched). */
int policy_desc_copy(const PolicyDesc *p, PolicyDesc *ret);
/* Frees what @p owns (its frequency tables); @p itself stays. */
void policy_desc_done(PolicyDesc *p);

/*
 * Parses the INI text of @f; @name is used in error messages. Checks cross-field consistency (min <= max,
 * scaling within cpuinfo, table sorted and within cpuinfo, no CPU in two policies). A file without any
 * section (empty, or comments only) is an error; a machine without cpufreq is a [system] section alone.
 * Returns 0, -EINVAL for bad input (a syntax or value error, a NUL byte, a line over 64 KiB), a read error's
 * errno, or -ENOMEM. On every error, when @ret_error is non-NULL, *@ret_error is a malloc'd message naming
 * the file: "NAME:LINE: reason", or "NAME: reason" when no line is to blame (it stays NULL only when even
 * that message cannot be allocated).
 */
int topology_parse_file(FILE *f, const char *name, Topology **ret, char **ret_error);
/* Opens @path and parses it as above; a file that cannot be opened, or a directory, gives its errno and
 * "PATH: strerror". */
int topology_load(const char *path, Topology **ret, char **ret_error);

/* Writes @t in the format above (what `schedfreqd topology` prints). */
int topology_write(FILE *f, const Topology *t);
/* The same text, malloc'd; NULL when out of memory (or when writing fails). */
char *topology_to_string(const Topology *t);
/*
 * Writes @t as one JSON object (`schedfreqd topology --json`, topology-json.c): a member per section, "system"
 * and "policyN", with the keys above under the same names, the optional ones left out as above. Numbers are
 * numbers; online, possible and cpus are CPU-list strings ("0-3"); frequencies_khz and inefficient_khz are
 * arrays of numbers and governors an array of strings:
 *   { "system": { "online": "0-1", "possible": "0-1" },
 *     "policy0": { "cpus": "0", "driver": "cpufreq-dt", …, "frequencies_khz": [500000, 1000000], … } }
 */
int topology_write_json(FILE *f, const Topology *t);

/* The policy that contains @cpu, or NULL. */
const PolicyDesc *topology_policy_of_cpu(const Topology *t, unsigned cpu);
/* The policy named policy@id (its first CPU), or NULL. */
const PolicyDesc *topology_policy_by_id(const Topology *t, unsigned id);
/* The governors a driver offers when the description does not say: setpolicy drivers have no userspace. */
const char *topology_default_governors(const char *driver);
/* True when @governors (space separated) contains @name as a whole word. */
bool governors_contains(const char *governors, const char *name);
/*
 * schedutil's resolution, cpufreq_driver_resolve_freq() (drivers/cpufreq/cpufreq.c, CPUFREQ_RELATION_LE since
 * 5.16): @khz clamped to [min_khz, max_khz] (inverted limits collapse to max), then the lowest *efficient* table
 * entry >= it (else the highest efficient entry); when that entry is outside [min_khz, max_khz], or every
 * entry is inefficient, the lowest entry >= it whatever its efficiency (else the highest entry)
 * (cpufreq_frequency_table_target() in include/linux/cpufreq.h). Without inefficient entries that is plain
 * CPUFREQ_RELATION_L; the clamped value itself for continuous policies. Every frequency the governor chooses
 * goes through here.
 */
uint32_t policy_resolve_khz(const PolicyDesc *p, uint32_t min_khz, uint32_t max_khz, uint32_t khz);
/* CPUFREQ_RELATION_L without efficiencies: what __cpufreq_driver_target(policy, f, CPUFREQ_RELATION_L) does
 * with a write to scaling_setspeed (cpufreq_userspace.c) or powersave's minimum; inefficient entries count. */
uint32_t policy_resolve_l_khz(const PolicyDesc *p, uint32_t min_khz, uint32_t max_khz, uint32_t khz);
/* True when @khz is one of @p's inefficient entries. */
bool policy_khz_inefficient(const PolicyDesc *p, uint32_t khz);
