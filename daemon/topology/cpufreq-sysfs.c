/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq-sysfs.c: reading and writing cpufreq's sysfs attributes, and finding a policy's directory and the CPU
 * libcpupower reaches it through (include/topology.h). Discovery, the machine's policies -> Topology, is
 * cpufreq-discover.c's; what the two share is cpufreq-sysfs-internal.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cpufreq.h>

#include "cpufreq-sysfs-internal.h"
#include "cpulist.h"
#include "fs-util.h"
#include "macro.h"
#include "string-util.h"
#include "topology.h"

int cpufreq_sysfs_read_at(int dir_fd, const char *name, char *buf, size_t size) {
        return read_small_file_at(dir_fd, name, buf, size);
}

int cpufreq_sysfs_read(const char *path, char *buf, size_t size) {
        return cpufreq_sysfs_read_at(AT_FDCWD, path, buf, size);
}

int cpufreq_sysfs_read_u32_at(int dir_fd, const char *name, uint32_t *ret) {
        char buf[64];
        int r;

        r = cpufreq_sysfs_read_at(dir_fd, name, buf, sizeof(buf));
        if (r < 0)
                return r;
        return parse_u32_line(buf, ret);
}

int cpufreq_sysfs_read_u32(const char *path, uint32_t *ret) {
        return cpufreq_sysfs_read_u32_at(AT_FDCWD, path, ret);
}

int cpufreq_sysfs_write(const char *path, const char *value) {
        _cleanup_close_ int fd = -EBADF;
        size_t len = strlen(value);
        ssize_t n;

        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = write(fd, value, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

int cpufreq_sysfs_parse_policy_link(const char *target, unsigned *ret_id) {
        const char *base = strrchr(target, '/');
        uint32_t id;
        int r;

        base = base ? base + 1 : target;
        if (strncmp(base, "policy", 6) != 0)
                return -EINVAL;
        r = parse_u32_line(base + 6, &id);
        if (r < 0)
                return -EINVAL;
        *ret_id = id;
        return 0;
}

int cpufreq_sysfs_cpus_from_list(const struct cpufreq_affected_cpus *list, cpu_set_t *ret) {
        cpu_set_t set;

        CPU_ZERO(&set);
        for (; list; list = list->next) {
                if (list->cpu >= CPU_SETSIZE)
                        return -ERANGE;
                CPU_SET(list->cpu, &set);
        }
        *ret = set;
        return 0;
}

int cpufreq_sysfs_join_governors(const struct cpufreq_available_governors *list, char *buf, size_t size) {
        size_t len = 0;

        if (size == 0)
                return -ENOBUFS;
        buf[0] = '\0';
        for (; list; list = list->next) {
                int n = snprintf(buf + len, size - len, "%s%s", len > 0 ? " " : "", list->governor);
                if (n < 0 || (size_t) n >= size - len) {
                        buf[0] = '\0';
                        return -ENOBUFS;
                }
                len += (size_t) n;
        }
        return 0;
}

static int cmp_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

        return (x > y) - (x < y);
}

size_t cpufreq_sysfs_normalize_table(uint32_t *khz, size_t n, uint32_t min_khz, uint32_t max_khz) {
        size_t k = 0;

        if (n == 0)
                return 0;
        qsort(khz, n, sizeof(khz[0]), cmp_u32);
        for (size_t i = 0; i < n; i++) {
                if (khz[i] < min_khz || khz[i] > max_khz)
                        continue;
                if (k > 0 && khz[k - 1] == khz[i])
                        continue;
                khz[k++] = khz[i];
        }
        return k;
}

void cpufreq_sysfs_cpu_path(char *buf, size_t size, unsigned cpu, const char *name) {
        (void) snprintf(buf, size, SYSFS_CPU_DIR "/cpu%u/%s", cpu, name);
}

static bool cpu_has_cpufreq(unsigned cpu) {
        char path[PATH_MAX];
        struct stat st;

        cpufreq_sysfs_cpu_path(path, sizeof(path), cpu, "cpufreq");
        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cpufreq_sysfs_read_cpulist(const char *name, const cpu_set_t *fallback, cpu_set_t *ret) {
        char path[PATH_MAX], buf[4096];
        int r;

        (void) snprintf(path, sizeof(path), SYSFS_CPU_DIR "/%s", name);
        r = cpufreq_sysfs_read(path, buf, sizeof(buf));
        if (r == -ENOENT) {
                *ret = *fallback;
                return 0;
        }
        if (r < 0)
                return r;
        return cpulist_parse(buf, ret);
}

/* The online set, or every CPU when the machine has no "online" file. */
static int read_online_cpus(cpu_set_t *ret) {
        cpu_set_t all;

        memset(&all, 0xff, sizeof(all));
        return cpufreq_sysfs_read_cpulist("online", &all, ret);
}

int cpufreq_sysfs_policy_cpu(const PolicyDesc *p, unsigned *ret_cpu) {
        cpu_set_t online;
        int r;

        r = read_online_cpus(&online);
        if (r < 0)
                return r;
        for (unsigned cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &p->cpus) && CPU_ISSET(cpu, &online) && cpu_has_cpufreq(cpu)) {
                        *ret_cpu = cpu;
                        return 0;
                }
        return -ENODEV;
}

int cpufreq_sysfs_policy_dir(const PolicyDesc *p, char **ret) {
        char path[PATH_MAX];
        struct stat st;
        unsigned cpu;
        char *s;
        int r;

        (void) snprintf(path, sizeof(path), SYSFS_CPU_DIR "/cpufreq/policy%u", p->id);
        if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
                r = cpufreq_sysfs_policy_cpu(p, &cpu);
                if (r < 0)
                        return r;
                cpufreq_sysfs_cpu_path(path, sizeof(path), cpu, "cpufreq");
        }
        s = strdup(path);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int cpufreq_sysfs_policy_locate(const PolicyDesc *p, unsigned *ret_cpu, char **ret_dir) {
        char path[PATH_MAX];
        char *s;

        if (!p->sysfs_found)
                return -ENODATA;
        if (p->sysfs_policy_dir)
                (void) snprintf(path, sizeof(path), SYSFS_CPU_DIR "/cpufreq/policy%u", p->id);
        else
                cpufreq_sysfs_cpu_path(path, sizeof(path), p->sysfs_cpu, "cpufreq");
        s = strdup(path);
        if (!s)
                return -ENOMEM;
        *ret_cpu = p->sysfs_cpu;
        *ret_dir = s;
        return 0;
}
