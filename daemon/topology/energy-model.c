/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * energy-model.c: the Energy Model's inefficient OPPs of a policy, from debugfs (daemon/topology/energy-model.h).
 *
 * What the kernel does (kernel/power/energy_model.c, 5.16+): em_compute_costs() walks a performance domain's
 * states from the highest down and flags EM_PERF_STATE_INEFFICIENT (bit 0 of em_perf_state.flags) each state
 * whose cost (fmax x power / freq) is not below that of some higher state; em_cpufreq_update_efficiencies()
 * then calls cpufreq_table_set_inefficient() (include/linux/cpufreq.h) for each flagged frequency, which sets
 * CPUFREQ_INEFFICIENT_FREQ on the cpufreq table's entry of that frequency, if it has one, and
 * policy->efficiencies_available. From then on schedutil's cpufreq_driver_resolve_freq() (CPUFREQ_RELATION_LE)
 * skips those entries where it can (policy_resolve_khz()).
 *
 * What userspace sees: nothing in sysfs. With CONFIG_DEBUG_FS the EM shows itself under
 * /sys/kernel/debug/energy_model/ (em_debug_create_pd(), em_debug_create_ps()): a directory per domain, named
 * after the device that registered it ("cpu0", "cpu4"), holding "cpus" (the domain's CPUs, "%*pbl"), "flags", and
 * one "ps:FREQ" directory per state with "frequency" (kHz for CPUs), "power", "cost", "performance" (6.9+)
 * and "inefficient" (the state's flags, "%lu"). So: the domain whose cpus meet the policy's, and of its states
 * those whose "inefficient" has bit 0 set and whose frequency is an entry of the policy's table (the others
 * cpufreq_table_set_inefficient() refuses). debugfs is root's only (0700): elsewhere there is no EM to see.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpulist.h"
#include "energy-model.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);

/* EM_PERF_STATE_INEFFICIENT (include/linux/energy_model.h). */
#define EM_PERF_STATE_INEFFICIENT 1UL

/* A debugfs_create_ulong()/"%lu" value: decimal digits only. */
static int parse_ulong(const char *s, unsigned long *ret) {
        unsigned long v;
        char *end;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Whether the domain directory @fd spans one of @cpus (its "cpus" list; a device that is no CPU has none). */
static bool domain_spans(int fd, const cpu_set_t *cpus) {
        cpu_set_t domain;
        char buf[4096];

        if (read_small_file_at(fd, "cpus", buf, sizeof(buf)) < 0 || cpulist_parse(buf, &domain) < 0)
                return false;
        CPU_AND(&domain, &domain, cpus);
        return CPU_COUNT(&domain) > 0;
}

/* Opens the directory of the domain spanning @cpus under @dir; -ENOENT when there is none. */
static int domain_open(const char *dir, const cpu_set_t *cpus) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;

        d = opendir(dir);
        if (!d)
                return negative_errno();
        while ((de = readdir(d))) {
                _cleanup_close_ int fd = -EBADF;

                if (de->d_name[0] == '.')
                        continue;
                fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd >= 0 && domain_spans(fd, cpus))
                        return TAKE_FD(fd);
        }
        return -ENOENT;
}

/* State directory @name ("ps:FREQ") of domain @domain_fd: its frequency, if the EM flags it inefficient. */
static bool state_inefficient(int domain_fd, const char *name, unsigned long *ret_khz) {
        _cleanup_close_ int fd = -EBADF;
        unsigned long flags, khz;
        char buf[64];

        if (strncmp(name, "ps:", 3) != 0)
                return false;
        fd = openat(domain_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return false;
        if (read_small_file_at(fd, "inefficient", buf, sizeof(buf)) < 0 || parse_ulong(buf, &flags) < 0)
                return false;
        if (!(flags & EM_PERF_STATE_INEFFICIENT))
                return false;
        /* "frequency" holds it; the directory's name too (snprintf(name, ..., "ps:%lu", freq)). */
        if ((read_small_file_at(fd, "frequency", buf, sizeof(buf)) < 0 || parse_ulong(buf, &khz) < 0) &&
            parse_ulong(name + 3, &khz) < 0)
                return false;
        *ret_khz = khz;
        return true;
}

/* Marks in @flagged the entries of @table_khz that domain @domain_fd's states flag inefficient. */
static void domain_scan(int domain_fd, const uint32_t *table_khz, size_t n_table, bool *flagged) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int fd;

        fd = fcntl(domain_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return;
        d = fdopendir(fd);
        if (!d) {
                (void) close(fd);
                return;
        }
        while ((de = readdir(d))) {
                unsigned long khz;

                if (!state_inefficient(dirfd(d), de->d_name, &khz))
                        continue;
                /* cpufreq_table_set_inefficient(): only a frequency the table has. */
                for (size_t i = 0; i < n_table; i++)
                        if (table_khz[i] == khz)
                                flagged[i] = true;
        }
}

int energy_model_inefficient_khz(const char *dir, const cpu_set_t *cpus, const uint32_t *table_khz, size_t n_table,
                                 uint32_t **ret_khz, size_t *ret_n) {
        _cleanup_free_ bool *flagged = NULL;
        _cleanup_close_ int domain_fd = -EBADF;
        uint32_t *list;
        size_t n = 0;

        *ret_khz = NULL;
        *ret_n = 0;
        if (!dir || !cpus || !table_khz || n_table == 0)
                return 0;

        domain_fd = domain_open(dir, cpus);
        if (domain_fd < 0) {
                (void) log_debug_errno(domain_fd, "%s: no Energy Model for these CPUs: %m", dir);
                return 0;
        }
        flagged = calloc(n_table, sizeof(bool));
        if (!flagged)
                return -ENOMEM;
        domain_scan(domain_fd, table_khz, n_table, flagged);

        for (size_t i = 0; i < n_table; i++)
                if (flagged[i])
                        n++;
        if (n == 0)
                return 0;
        list = malloc(n * sizeof(uint32_t));
        if (!list)
                return -ENOMEM;
        n = 0;
        for (size_t i = 0; i < n_table; i++)
                if (flagged[i])
                        list[n++] = table_khz[i];

        *ret_khz = list;
        *ret_n = n;
        return 0;
}
