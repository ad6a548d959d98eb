/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq-discover.c: the live machine's cpufreq policies -> Topology (cpufreq_discover()).
 *
 * Layouts (drivers/cpufreq/cpufreq.c):
 *  - current kernels (since about 2015): a policy's attributes live in cpufreq/policyN; every CPU of
 *    related_cpus gets a cpuM/cpufreq -> ../cpufreq/policyN link (add_cpu_dev_symlink()), which stays while
 *    the CPU is offline.
 *  - older kernels: a real cpuM/cpufreq directory on the policy owner and links or per-CPU directories on the
 *    others; no policyN, so we number the policy by its first related CPU (the convention of topology.h).
 * Either way a CPU may have no cpufreq entry at all (offline at boot, or a driver that never registered it) and
 * still be listed in another CPU's related_cpus: it belongs to that policy.
 *
 * A policy whose CPUs are all offline is skipped: the kernel answers every show()/store() of an inactive policy
 * with -EBUSY (cpufreq.c show()/store(), policy_is_inactive()), so it can be neither read nor governed.
 *
 * What reads what. libcpupower (tools/power/cpupower/lib/cpufreq.c) reads what defines a policy and takes
 * parsing: related_cpus/affected_cpus, scaling_available_governors, scaling_available_frequencies and
 * scaling_boost_frequencies, as `cpupower frequency-info` does. Its every read is a path through
 * cpuN/cpufreq, the link, to the policy's directory: one open, but a walk of four components and the link.
 * Cheap on sysfs (the dcache), it is a round trip per component wherever lookups are not cached (FUSE with
 * zero timeouts, as tests/emu serves it: ~2.5x a read through a directory fd at 1024 CPUs). So the single
 * values (driver, cpuinfo and scaling limits, governor, current frequency, transition latency, schedutil's
 * rate_limit_us) are read here with openat(2) on one fd of the policy's directory, opened once per policy; the
 * global schedutil/rate_limit_us once per discovery, not once per policy, and so are what the driver decides
 * for all policies (DiscoverShared: scaling_driver, scaling_available_governors, whether cpu_capacity exists).
 * Those values are also what the take-over saves (actuator.c), which takes them from here instead of reading
 * them again. Past the first policy the others are read ahead on a few threads (ReadAhead), in the same order
 * of claims. The Energy Model's inefficient OPPs are not in sysfs: energy-model.c reads them from debugfs,
 * where it is mounted and readable.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cpufreq.h>

#include "alloc-util.h"
#include "autogroup.h"
#include "sched-features.h"
#include "cpufreq-sysfs-internal.h"
#include "cpulist.h"
#include "energy-model.h"
#include "log.h"
#include "macro.h"
#include "parallel.h"
#include "string-util.h"
#include "topology.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cpufreq_available_governors *, cpufreq_put_available_governors);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cpufreq_available_frequencies *, cpufreq_put_available_frequencies);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cpufreq_affected_cpus *, cpufreq_put_affected_cpus);

/*
 * libcpupower reports failure as 0 or NULL and keeps no error of its own, but its readers and writers return
 * right after the open(2)/read(2)/write(2) that failed, with that errno still set (cpupower_read_sysfs() in
 * tools/power/cpupower/lib/cpupower.c, sysfs_cpufreq_write_file() in cpufreq.c). So: clear errno before a call,
 * look at it after a failure. errno 0 then means "read, but empty or not a number". Clearing also matters for
 * success: sysfs_cpufreq_get_one_value() tests errno == ERANGE without resetting it, so a stale ERANGE turns a
 * good value into 0. The single values read here directly keep that meaning: empty or 0 kHz is -ENODATA.
 *
 * A libcpupower list getter failed: was the file absent or empty (0: no data), or did reading fail (< 0)? */
static int cpupower_list_error(void) {
        if (errno == 0 || errno == ENOENT)
                return 0;
        return -errno;
}

/* "cpu12" -> 12; -EINVAL for every other name in the directory (cpufreq, cpuidle, online, ...). */
static int parse_cpu_dirname(const char *name, unsigned *ret) {
        uint32_t cpu;

        if (strncmp(name, "cpu", 3) != 0 || parse_u32_line(name + 3, &cpu) < 0 || cpu >= CPU_SETSIZE)
                return -EINVAL;
        *ret = cpu;
        return 0;
}

/* The CPUs that have a cpuN directory. Numbering may be sparse (cpu0, cpu2, cpu5). */
static int read_present_cpus(cpu_set_t *ret) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        cpu_set_t set;

        d = opendir(SYSFS_CPU_DIR);
        if (!d)
                return errno == ENOENT ? -ENODEV : -errno;
        CPU_ZERO(&set);
        errno = 0;
        while ((de = readdir(d))) {
                unsigned cpu;

                if (parse_cpu_dirname(de->d_name, &cpu) >= 0)
                        CPU_SET(cpu, &set);
        }
        if (errno > 0)
                return -errno;
        *ret = set;
        return 0;
}

/* related_cpus; empty or absent on old or broken drivers: then affected_cpus; then the CPU alone. */
static int policy_read_cpus(unsigned cpu, cpu_set_t *ret) {
        _cleanup_(cpufreq_put_affected_cpusp) struct cpufreq_affected_cpus *list = NULL;
        cpu_set_t set;
        int r;

        errno = 0;
        list = cpufreq_get_related_cpus(cpu);
        if (!list) {
                r = cpupower_list_error();
                if (r < 0)
                        return r;
                log_debug("cpu%u: related_cpus empty or absent, trying affected_cpus", cpu);
                errno = 0;
                list = cpufreq_get_affected_cpus(cpu);
                if (!list) {
                        r = cpupower_list_error();
                        if (r < 0)
                                return r;
                }
        }
        r = cpufreq_sysfs_cpus_from_list(list, &set);
        if (r < 0)
                return r;
        /* The CPU we reached the policy through is in it, whatever the lists say. */
        CPU_SET(cpu, &set);
        *ret = set;
        return 0;
}

/*
 * Where @cpu's policy keeps its attributes, opened: the cpuN/cpufreq link names cpufreq/policyM (then
 * @ret_link_id is M), else cpuN/cpufreq is the legacy layout's directory (a real one, or a link to another
 * CPU's). -ENOENT (or another errno) when @cpu has no cpufreq directory: no entry, or a link to nothing, as a
 * stat(2) of cpuN/cpufreq would tell. One readlink(2) and one open(2) instead of a stat(2) and a readlink(2)
 * here and a stat(2) of policyM later.
 */
static int policy_open_dir(unsigned cpu, int *ret_fd, int *ret_link_id) {
        char link[PATH_MAX], target[PATH_MAX], path[PATH_MAX];
        int fd, link_id = -1;
        unsigned id;
        ssize_t n;

        cpufreq_sysfs_cpu_path(link, sizeof(link), cpu, "cpufreq");
        n = readlink(link, target, sizeof(target) - 1);
        if (n < 0 && errno != EINVAL)
                return -errno;
        if (n >= 0) {
                target[n] = '\0';
                if (cpufreq_sysfs_parse_policy_link(target, &id) >= 0 && id <= INT_MAX)
                        link_id = (int) id;
        }
        if (link_id >= 0)
                (void) snprintf(path, sizeof(path), SYSFS_CPU_DIR "/cpufreq/policy%d", link_id);
        fd = open(link_id >= 0 ? path : link, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        *ret_fd = fd;
        *ret_link_id = link_id;
        return 0;
}

static int copy_string(char *dst, size_t size, const char *src) {
        size_t len = strlen(src);

        if (len >= size)
                return -ENAMETOOLONG;
        memcpy(dst, src, len + 1);
        return 0;
}

static int khz_from_ulong(unsigned long v, uint32_t *ret) {
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

/* A single-word attribute of the policy directory @dir_fd; empty is -ENODATA (libcpupower's "no value"). */
static int policy_read_word(int dir_fd, const char *name, char *dst, size_t size) {
        char buf[256];
        int r;

        r = cpufreq_sysfs_read_at(dir_fd, name, buf, sizeof(buf));
        if (r < 0)
                return r == -EFBIG ? -ENAMETOOLONG : r;
        if (!buf[0])
                return -ENODATA;
        return copy_string(dst, size, buf);
}

/* A frequency of the policy directory @dir_fd. 0 kHz, or not a number, is -ENODATA: libcpupower's getters
 * report both as failure, and no driver has a 0 kHz limit. */
static int policy_read_khz(int dir_fd, const char *name, uint32_t *ret) {
        int r;

        r = cpufreq_sysfs_read_u32_at(dir_fd, name, ret);
        if (r == -EINVAL || (r >= 0 && *ret == 0))
                return -ENODATA;
        return r;
}

/*
 * What one discovery reads once for all policies, through the first policy it reads (shared_learn()):
 * what belongs to the one cpufreq driver or to the kernel, not to a policy (drivers/cpufreq/cpufreq.c):
 *  - scaling_driver shows cpufreq_driver->name, the one registered driver's;
 *  - scaling_available_governors shows the registered governors (or "performance powersave" for a setpolicy
 *    driver): cpufreq_governor_list, not a policy's;
 *  - cpuN/cpu_capacity is made for every CPU or for none (drivers/base/arch_topology.c: where the architecture
 *    uses it, for each CPU as it comes online); its value is the CPU's own;
 *  - cpufreq/schedutil/rate_limit_us, when the driver has no governor per policy (policy_read_rate_limit()).
 * Once known, the policies are read without writing to it, so several at a time (cpufreq_discover()).
 */
typedef struct DiscoverShared {
        bool known;                     /* read (through the first policy): the fields below hold */
        char driver[TOPOLOGY_DRIVER_MAX];
        char governors[TOPOLOGY_GOVERNORS_MAX];
        bool no_capacity;               /* cpuN/cpu_capacity absent: not asked of the other CPUs */
        bool global_rate_limit_read;
        int global_rate_limit_error;    /* 0, or why cpufreq/schedutil/rate_limit_us could not be read */
        uint32_t global_rate_limit_us;
} DiscoverShared;

static int policy_read_driver(int dir_fd, PolicyDesc *p) {
        return policy_read_word(dir_fd, "scaling_driver", p->driver, sizeof(p->driver));
}

/* cpuinfo_{min,max}_freq, then scaling_governor, scaling_{min,max}_freq: the order of libcpupower's
 * cpufreq_get_hardware_limits() and cpufreq_get_policy(), so the first unreadable file is the same one. */
static int policy_read_limits(int dir_fd, PolicyDesc *p) {
        int r;

        r = policy_read_khz(dir_fd, "cpuinfo_min_freq", &p->cpuinfo_min_khz);
        if (r < 0)
                return r;
        r = policy_read_khz(dir_fd, "cpuinfo_max_freq", &p->cpuinfo_max_khz);
        if (r < 0)
                return r;
        r = policy_read_word(dir_fd, "scaling_governor", p->governor, sizeof(p->governor));
        if (r < 0)
                return r;
        r = policy_read_khz(dir_fd, "scaling_min_freq", &p->scaling_min_khz);
        if (r < 0)
                return r;
        return policy_read_khz(dir_fd, "scaling_max_freq", &p->scaling_max_khz);
}

static int policy_read_governors(unsigned cpu, PolicyDesc *p) {
        _cleanup_(cpufreq_put_available_governorsp) struct cpufreq_available_governors *list = NULL;
        int r;

        errno = 0;
        list = cpufreq_get_available_governors(cpu);
        if (!list) {
                r = cpupower_list_error();
                if (r < 0)
                        return r;
                /* Unknown: the actuator will find no userspace governor and say so. */
                p->governors[0] = '\0';
                return 0;
        }
        return cpufreq_sysfs_join_governors(list, p->governors, sizeof(p->governors));
}

static size_t frequencies_count(const struct cpufreq_available_frequencies *l) {
        size_t n = 0;

        for (; l; l = l->next)
                n++;
        return n;
}

static int frequencies_append(const struct cpufreq_available_frequencies *l, uint32_t *khz, size_t *n) {
        int r;

        for (; l; l = l->next) {
                r = khz_from_ulong(l->frequency, &khz[*n]);
                if (r < 0)
                        return r;
                (*n)++;
        }
        return 0;
}

/*
 * The driver's frequency table: scaling_available_frequencies plus scaling_boost_frequencies, the two halves
 * of policy->freq_table (drivers/cpufreq/freq_table.c show_available_freqs()). Table order is the driver's:
 * acpi-cpufreq lists it descending, so sort. Boost entries above cpuinfo_max_freq are unusable while boost is
 * off (cpufreq_frequency_table_cpuinfo() leaves them out of the limits), so drop entries outside cpuinfo.
 * Absent files: a driver without a table (intel_pstate, cppc): continuous.
 */
static int policy_read_table(unsigned cpu, PolicyDesc *p, uint32_t **ret_table) {
        _cleanup_(cpufreq_put_available_frequenciesp) struct cpufreq_available_frequencies *avail = NULL;
        _cleanup_(cpufreq_put_available_frequenciesp) struct cpufreq_available_frequencies *boost = NULL;
        _cleanup_free_ uint32_t *table = NULL;
        size_t n = 0;
        int r;

        errno = 0;
        avail = cpufreq_get_available_frequencies(cpu);
        if (!avail && (r = cpupower_list_error()) < 0)
                return r;
        errno = 0;
        boost = cpufreq_get_boost_frequencies(cpu);
        if (!boost && (r = cpupower_list_error()) < 0)
                return r;

        if (frequencies_count(avail) + frequencies_count(boost) > 0) {
                table = calloc(frequencies_count(avail) + frequencies_count(boost), sizeof(uint32_t));
                if (!table)
                        return -ENOMEM;
                r = frequencies_append(avail, table, &n);
                if (r < 0)
                        return r;
                r = frequencies_append(boost, table, &n);
                if (r < 0)
                        return r;
                n = cpufreq_sysfs_normalize_table(table, n, p->cpuinfo_min_khz, p->cpuinfo_max_khz);
        }
        if (n == 0) {
                free(table);
                table = NULL;
        }
        p->frequencies_khz = table;
        p->n_frequencies = n;
        *ret_table = TAKE_PTR(table);
        return 0;
}

/*
 * cpuinfo_transition_latency in ns; 0 is a real value (intel_pstate in active mode reports it).
 * CPUFREQ_ETERNAL (4294967295, "unknown") is kept as it is: it is what the kernel's
 * cpufreq_policy_transition_delay_us() computes schedutil's default rate limit from (6.4 s on 6.12-6.17), and
 * the governor mirrors that per kernel version (schedutil.c). Since the 2025 change drivers report
 * CPUFREQ_DEFAULT_TRANSITION_LATENCY_NS (1 ms) instead, so sysfs shows that. An absent file is taken as that
 * 1 ms default.
 */
static int policy_read_latency(int dir_fd, PolicyDesc *p) {
        uint32_t v;
        int r;

        r = cpufreq_sysfs_read_u32_at(dir_fd, "cpuinfo_transition_latency", &v);
        if (r == -ENOENT) {
                p->transition_latency_ns = TOPOLOGY_DEFAULT_LATENCY_NS;
                return 0;
        }
        if (r < 0)
                return r;
        p->transition_latency_ns = MIN((uint64_t) v, (uint64_t) CPUFREQ_ETERNAL_LATENCY);
        return 0;
}

/* cpufreq/schedutil/rate_limit_us, read at the first policy that needs it: one file for every schedutil
 * policy of a driver without a governor per policy (get_governor_parent_kobj(), drivers/cpufreq/cpufreq.c). */
static int global_rate_limit(DiscoverShared *shared, uint32_t *ret) {
        if (!shared->global_rate_limit_read) {
                shared->global_rate_limit_error = cpufreq_sysfs_read_u32(
                        SYSFS_CPU_DIR "/cpufreq/schedutil/rate_limit_us", &shared->global_rate_limit_us);
                shared->global_rate_limit_read = true;
        }
        *ret = shared->global_rate_limit_us;
        return shared->global_rate_limit_error;
}

/*
 * schedutil's rate_limit_us while schedutil governs the policy (kernel/sched/cpufreq_schedutil.c
 * sugov_tunables): in the policy's directory (policyN/schedutil/) when the driver has a governor per policy
 * (CPUFREQ_HAVE_GOVERNOR_PER_POLICY: scmi, qcom-cpufreq-hw, ...), else the one global directory
 * cpufreq/schedutil/ shared by every schedutil policy (get_governor_parent_kobj()). Any other governor: nothing
 * to read. Unreadable: unknown, the daemon then computes the default.
 * The flag is the driver's and one driver serves every policy (cpufreq_driver, drivers/cpufreq/cpufreq.c): a
 * global directory means no policy has its own, so with it no policy directory is looked in.
 */
static void policy_read_rate_limit(int dir_fd, DiscoverShared *shared, PolicyDesc *p) {
        uint32_t v;
        int r;

        p->has_rate_limit = false;
        if (!streq(p->governor, "schedutil"))
                return;

        r = global_rate_limit(shared, &v);
        if (r == -ENOENT)
                r = cpufreq_sysfs_read_u32_at(dir_fd, "schedutil/rate_limit_us", &v);
        if (r < 0) {
                log_debug_errno(r, "policy%u: governor schedutil but no readable schedutil/rate_limit_us (%m), "
                                "the rate limit will be computed", p->id);
                return;
        }
        p->rate_limit_us = v;
        p->has_rate_limit = true;
}

/* cpuN/cpu_capacity (drivers/base/arch_topology.c); absent on most x86 machines: 0 = none. */
static int policy_read_capacity(unsigned cpu, DiscoverShared *shared, PolicyDesc *p) {
        char path[PATH_MAX];
        uint32_t v;
        int r;

        p->capacity = 0;
        if (shared->no_capacity)
                return 0;
        cpufreq_sysfs_cpu_path(path, sizeof(path), cpu, "cpu_capacity");
        r = cpufreq_sysfs_read_u32(path, &v);
        if (r == -ENOENT) {
                if (!shared->known)
                        shared->no_capacity = true;
                return 0;
        }
        if (r < 0)
                return r;
        p->capacity = v;
        return 0;
}

/* scaling_cur_freq; unreadable is 0, PolicyDesc's "could not tell" (libcpupower's getter said 0 too). */
static int policy_read_cur(int dir_fd, PolicyDesc *p) {
        int r;

        r = cpufreq_sysfs_read_u32_at(dir_fd, "scaling_cur_freq", &p->cur_khz);
        if (r == -ERANGE)
                return r;
        if (r < 0)
                p->cur_khz = 0;
        return 0;
}

/*
 * One policy as read through a CPU, before it joins the topology. cpufreq_discover() takes these in CPU order,
 * from a read made then or from one made ahead of time on another thread; a read's failure counts only when it
 * is taken (a CPU another policy claims first is never read in that order, and its error is no error).
 */
typedef struct PolicyRead {
        unsigned cpu;
        bool read;              /* policy_read() filled it (a read ahead not made is read again in turn) */
        bool no_cpufreq;        /* the CPU has no cpufreq directory: nothing read, not an error */
        int r;                  /* < 0: reading @what failed */
        const char *what;
        PolicyDesc p;           /* p.cpus as related_cpus says, before the first claim wins */
        uint32_t *table;        /* p.frequencies_khz, owned */
} PolicyRead;

static int policy_read_failed(PolicyRead *pr, int r, const char *what) {
        pr->r = r;
        pr->what = what;
        return r;
}

/* The values the driver decides (DiscoverShared): from the first policy, read, afterwards copied. */
static int policy_read_driver_values(unsigned cpu, int dir_fd, const DiscoverShared *shared, PolicyRead *pr) {
        PolicyDesc *p = &pr->p;
        int r;

        if (shared->known) {
                memcpy(p->driver, shared->driver, sizeof(p->driver));
                memcpy(p->governors, shared->governors, sizeof(p->governors));
                return 0;
        }
        r = policy_read_driver(dir_fd, p);
        if (r < 0)
                return policy_read_failed(pr, r, "scaling_driver");
        r = policy_read_governors(cpu, p);
        if (r < 0)
                return policy_read_failed(pr, r, "scaling_available_governors");
        return 0;
}

/* Reads the policy reached through @cpu (online, in no policy yet) into @pr. Writes to @shared only while it
 * is not known yet (the first policy's read, on the caller's thread). */
static int policy_read(unsigned cpu, DiscoverShared *shared, PolicyRead *pr) {
        _cleanup_close_ int dir_fd = -EBADF;
        PolicyDesc *p = &pr->p;
        int link_id, r;

        pr->cpu = cpu;
        pr->read = true;
        if (policy_open_dir(cpu, &dir_fd, &link_id) < 0) {
                pr->no_cpufreq = true;
                return 0;
        }
        r = policy_read_cpus(cpu, &p->cpus);
        if (r < 0)
                return policy_read_failed(pr, r, "related_cpus");
        /* policyN from the link; on the legacy layout the policy's first CPU (topology.h's convention). */
        p->id = link_id >= 0 ? (unsigned) link_id : (unsigned) cpulist_first(&p->cpus);
        p->sysfs_found = true;
        p->sysfs_policy_dir = link_id >= 0;
        p->sysfs_cpu = cpu;

        r = policy_read_limits(dir_fd, p);
        if (r < 0)
                return policy_read_failed(pr, r, "cpuinfo/scaling limits and governor");
        r = policy_read_driver_values(cpu, dir_fd, shared, pr);
        if (r < 0)
                return r;
        r = policy_read_table(cpu, p, &pr->table);
        if (r < 0)
                return policy_read_failed(pr, r, "the frequency table");
        r = policy_read_latency(dir_fd, p);
        if (r < 0)
                return policy_read_failed(pr, r, "cpuinfo_transition_latency");
        r = policy_read_capacity(cpu, shared, p);
        if (r < 0)
                return policy_read_failed(pr, r, "cpu_capacity");
        policy_read_rate_limit(dir_fd, shared, p);
        r = policy_read_cur(dir_fd, p);
        if (r < 0)
                return policy_read_failed(pr, r, "scaling_cur_freq");
        return 0;
}

/* After the first policy: what it showed of the driver is every policy's; the global rate limit is read now,
 * so that reads on other threads only read @shared. */
static void shared_learn(DiscoverShared *shared, const PolicyDesc *first) {
        uint32_t unused;

        memcpy(shared->driver, first->driver, sizeof(shared->driver));
        memcpy(shared->governors, first->governors, sizeof(shared->governors));
        (void) global_rate_limit(shared, &unused);
        shared->known = true;
}

/*
 * Reading ahead. The policies are read in CPU order, each through its first online CPU not yet claimed; on the
 * current layout a policy's directory is cpufreq/policyN with N the CPU that made it, normally its first. So
 * once the first policy is read, every policyN whose CPU N is online and unclaimed is read at once, on
 * DISCOVER_THREADS threads (parallel.h), and the loop takes each read when it reaches N: the same reads as one
 * after the other, the waits overlapped (256 policies over the tests' FUSE emulator: ~7,000 round trips). A
 * policy reached otherwise (its N offline, the legacy layout) is read when the loop gets there. Only with
 * DISCOVER_AHEAD_MIN policies or more: a small machine reads its few policies one after the other, no thread.
 */
#define DISCOVER_THREADS 8u
#define DISCOVER_AHEAD_MIN 8u

typedef struct ReadAhead {
        DiscoverShared *shared;
        PolicyRead *reads;      /* ascending cpu */
        size_t n, next;         /* next: the first not yet taken or passed */
} ReadAhead;

static ReadAhead *read_ahead_free(ReadAhead *a) {
        if (!a)
                return NULL;
        for (size_t k = 0; k < a->n; k++)
                free(a->reads[k].table);
        free(a->reads);
        free(a);
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(ReadAhead *, read_ahead_free);

static int cmp_read_cpu(const void *a, const void *b) {
        unsigned x = ((const PolicyRead *) a)->cpu, y = ((const PolicyRead *) b)->cpu;

        return (x > y) - (x < y);
}

/* The CPUs N > @after of cpufreq/policyN that are present, online and unclaimed, into @a->reads. */
static int read_ahead_list(ReadAhead *a, unsigned after, const cpu_set_t *usable) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        size_t allocated = 0;

        d = opendir(SYSFS_CPU_DIR "/cpufreq");
        if (!d)
                return -errno;
        errno = 0;
        while ((de = readdir(d))) {
                PolicyRead *reads;
                uint32_t n;

                if (strncmp(de->d_name, "policy", 6) != 0 || parse_u32_line(de->d_name + 6, &n) < 0 ||
                    n >= CPU_SETSIZE || n <= after || !CPU_ISSET(n, usable))
                        continue;
                reads = greedy_realloc(a->reads, &allocated, a->n + 1, sizeof(PolicyRead), 64);
                if (!reads)
                        return -ENOMEM;
                a->reads = reads;
                a->reads[a->n++] = (PolicyRead) { .cpu = n };
        }
        if (errno > 0)
                return -errno;
        qsort(a->reads, a->n, sizeof(PolicyRead), cmp_read_cpu);
        return 0;
}

static void read_ahead_one(size_t i, void *userdata) {
        ReadAhead *a = userdata;

        (void) policy_read(a->reads[i].cpu, a->shared, &a->reads[i]);
}

/* Reads ahead the policies after @after (see above); NULL (no error) when there are too few to be worth it or
 * the list cannot be had: the loop then reads them itself. */
static ReadAhead *read_ahead(DiscoverShared *shared, unsigned after, const cpu_set_t *usable) {
        _cleanup_(read_ahead_freep) ReadAhead *a = NULL;
        unsigned threads;

        if ((unsigned) CPU_COUNT(usable) < DISCOVER_AHEAD_MIN)
                return NULL;
        a = calloc(1, sizeof(*a));
        if (!a || read_ahead_list(a, after, usable) < 0 || a->n < DISCOVER_AHEAD_MIN)
                return NULL;
        a->shared = shared;
        threads = parallel_for(a->n, DISCOVER_THREADS, read_ahead_one, a);
        log_debug("Read %zu cpufreq policies ahead on %u threads.", a->n, threads);
        return TAKE_PTR(a);
}

/* The read of @cpu made ahead, or NULL; the caller then owns its table. */
static PolicyRead *read_ahead_take(ReadAhead *a, unsigned cpu) {
        if (!a)
                return NULL;
        while (a->next < a->n && a->reads[a->next].cpu < cpu)
                a->next++;
        if (a->next == a->n || a->reads[a->next].cpu != cpu || !a->reads[a->next].read)
                return NULL;
        return &a->reads[a->next++];
}

/* Adds the policy of @pr to @t: the first claim of a CPU wins, then the EM's inefficient OPPs. */
static int discover_add(Topology *t, PolicyRead *pr, cpu_set_t *assigned) {
        _cleanup_free_ uint32_t *table = TAKE_PTR(pr->table), *inefficient = NULL;
        PolicyDesc *p = &pr->p;
        int r;

        if (pr->r < 0)
                return log_debug_errno(pr->r, "cpu%u: cannot read %s: %m", pr->cpu, pr->what);
        /* Inconsistent sysfs (a CPU claimed by two policies): the first claim wins, topology.h forbids two. */
        cpulist_subtract(&p->cpus, assigned);
        /* The EM's inefficient OPPs, where debugfs shows them (none elsewhere: energy-model.h). */
        r = energy_model_inefficient_khz(ENERGY_MODEL_DEBUGFS_DIR, &p->cpus, p->frequencies_khz, p->n_frequencies,
                                         &inefficient, &p->n_inefficient);
        if (r < 0)
                return r;
        p->inefficient_khz = inefficient;
        r = topology_add_policy(t, p);
        if (r < 0)
                return log_debug_errno(r, "policy%u: cannot add to the topology: %m", p->id);
        CPU_OR(assigned, assigned, &p->cpus);
        return 0;
}

int cpufreq_discover(Topology **ret) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_(read_ahead_freep) ReadAhead *ahead = NULL;
        DiscoverShared shared = {};
        cpu_set_t present, assigned, usable;
        int r;

        r = topology_new(&t);
        if (r < 0)
                return r;
        r = read_present_cpus(&present);
        if (r < 0)
                return r;
        r = cpufreq_sysfs_read_cpulist("online", &present, &t->online);
        if (r < 0)
                return r;
        r = cpufreq_sysfs_read_cpulist("possible", &present, &t->possible);
        if (r < 0)
                return r;

        /* In ascending order, so the CPU a policy is read through is its first online CPU with cpufreq. */
        CPU_ZERO(&assigned);
        for (unsigned cpu = 0; cpu < CPU_SETSIZE; cpu++) {
                PolicyRead now = {}, *pr;

                if (!CPU_ISSET(cpu, &present) || !CPU_ISSET(cpu, &t->online) || CPU_ISSET(cpu, &assigned))
                        continue;
                pr = read_ahead_take(ahead, cpu);
                if (!pr) {
                        (void) policy_read(cpu, &shared, &now);
                        pr = &now;
                }
                if (pr->no_cpufreq)
                        continue;
                r = discover_add(t, pr, &assigned);
                free(now.table);
                if (r < 0)
                        return r;
                if (!shared.known) {
                        shared_learn(&shared, &pr->p);
                        CPU_AND(&usable, &present, &t->online);
                        cpulist_subtract(&usable, &assigned);
                        ahead = read_ahead(&shared, cpu, &usable);
                }
        }
        if (t->n_policies == 0)
                return log_debug_errno(SYNTHETIC_ERRNO(ENODEV), "no online CPU has a cpufreq directory");
        /* [system] autogroup: whether this kernel groups the tasks by session (autogroup.c). */
        t->autogroup = autogroup_applies(NULL);
        /* [system] delayed_dequeue: whether this kernel keeps a sleeper queued until eligible (sched-features.c). */
        t->no_delayed_dequeue = !sched_delays_dequeue(NULL);

        *ret = TAKE_PTR(t);
        return 0;
}
