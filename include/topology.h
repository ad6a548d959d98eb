/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * include/topology.h: the public interface of daemon/topology/ (what the machine is: its cpufreq policies
 * (discovered from sysfs or read from a topology INI), the drivers' facts). The one header of that folder the rest
 * of the tree includes; its private headers stay in daemon/topology/. Sections, in dependency order:
 * cpufreq-driver, topology, cpufreq-sysfs.
 */

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What schedfreqd knows of cpufreq drivers by name (scaling_driver), in one table: which are setpolicy drivers
 * (no frequency to set: only the "performance powersave" pseudo-governors), which let any CPU change a policy's
 * frequency (policy->dvfs_possible_from_any_cpu), and how to get the userspace governor where it is missing.
 * A driver not in the table is an ordinary ->target driver whose frequency only its own CPUs may program.
 */

/* intel_pstate (active mode), amd-pstate-epp: ->setpolicy and no ->target (drivers/cpufreq/cpufreq.c). */
bool cpufreq_driver_is_setpolicy(const char *driver);
/* It sets policy->dvfs_possible_from_any_cpu (reference §5.3): one clock or firmware channel any CPU programs. */
bool cpufreq_driver_allows_remote(const char *driver);
/* What to do for a policy of @driver without the userspace governor: one sentence, never NULL. */
const char *cpufreq_driver_userspace_hint(const char *driver);

/*
 * The topology description: the machine's cpufreq policies in the INI format that `schedfreqd topology`
 * prints and that `schedfreqd replay --topology` and the cpufreq emulator read (docs/architecture.md).
 *
 *   [system]                      optional
 *   online = 0-3                  CPUs online (default: every CPU of every policy)
 *   possible = 0-7                CPUs possible/present (default: 0..highest CPU of any policy)
 *   autogroup = yes               optional (default no): the kernel schedules every session's tasks in a task
 *                                 group of their own (kernel.sched_autogroup_enabled = 1 and every task in the
 *                                 root cpu cgroup), whose cfs_rq a new task's initial util comes from; the model
 *                                 then follows the groups. Discovery sets it where that holds (autogroup.c)
 *   delayed_dequeue = no          optional (default yes): the kernel takes a sleeping task off its cfs_rq at once
 *                                 (before 6.12, or NO_DELAY_DEQUEUE); yes: EEVDF keeps it queued until eligible,
 *                                 its weight in the cfs_rq's load, and the model follows that. Discovery says no
 *                                 where the kernel lacks it (sched-features.c)
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
        bool autogroup;                /* [system] autogroup: the kernel groups tasks by session */
        bool no_delayed_dequeue;       /* [system] delayed_dequeue = no: sleepers leave their cfs_rq at once */
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

/*
 * Discovery of the live machine's cpufreq policies, read-only: libcpupower for what defines a policy (its CPUs,
 * the governors it offers, its frequency table), plain sysfs for the rest: the policy's single-value
 * attributes, read through one fd of its directory (cpufreq-discover.c says why), and what libcpupower lacks
 * (cpuN/cpu_capacity, online/possible, the cpuN/cpufreq -> ../cpufreq/policyM link). Plus the few plain sysfs
 * read/write helpers the actuator shares.
 *
 * Paths are fixed to /sys/devices/system/cpu, as libcpupower's are (tools/power/cpupower/lib/cpupower_intern.h
 * PATH_TO_CPU); a root prefix for tests would split our reads from libcpupower's. Tests bind-mount a tree over
 * that directory in a private mount namespace instead (tests/integration/test-discovery.sh).
 */

#define SYSFS_CPU_DIR "/sys/devices/system/cpu"

/* cpuinfo_transition_latency of drivers that do not know it: CPUFREQ_ETERNAL (include/linux/cpufreq.h), (-1)
 * printed with "%u". */
#define CPUFREQ_ETERNAL_LATENCY 4294967295UL

struct cpufreq_affected_cpus;
struct cpufreq_available_governors;

/*
 * Builds the topology of the live machine: one policy per cpufreq policy that has at least one online CPU, in
 * the order of their ids, and [system] autogroup from /proc/sys and /sys/fs/cgroup (autogroup.c). Returns 0; -ENODEV when no online CPU has cpufreq (no driver loaded); another negative
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
