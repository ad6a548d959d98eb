/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ondemand-sampler: the baseline peer of the benchmarks (issue #12), a minimal ondemand-style governor in user
 * space. It is what a sampling governor costs and how fast it reacts, honest to the kernel's
 * drivers/cpufreq/cpufreq_ondemand.c (od_update()) and cpufreq_governor.c (dbs_update()), except that its load
 * comes from /proc/stat as a user-space tool can read it:
 *
 *   - every SAMPLING_MS (10 ms, a timerfd: it wakes whether or not anything happens, as ondemand's timer does)
 *     it reads /proc/stat; a CPU's load over the interval is 100 * (wall - idle) / wall, with iowait counted
 *     as idle (io_is_busy = 0); a policy's load is the maximum over its CPUs (dbs_update());
 *   - above UP_THRESHOLD (80 %) the policy goes to its maximum; below, to
 *     min + load * (max - min) / 100 of cpuinfo's range, resolved to the closest table frequency
 *     (CPUFREQ_RELATION_CE since 5.16: C among the efficient frequencies, every one of a table that marks
 *     none inefficient), as od_update() does; the write goes to scaling_setspeed through a kept-open fd,
 *     and only when the frequency changes (__cpufreq_driver_target() returns early on the current one).
 *
 * /proc/stat counts in USER_HZ ticks (10 ms), so a 10 ms sample sees a CPU as 0 % or 100 % busy, or sees no
 * tick at all; the kernel's ondemand reads the idle time in µs. An interval without a tick reuses the CPU's
 * previous load, as dbs_update() does when no time elapsed ("the previous load value can be used then"): read
 * as idle, it would drop a hog's policy to the minimum one sample in three. That coarseness is the price of
 * sampling from user space, kept here.
 *
 * It takes every policy over with the userspace governor and puts each governor (and a userspace policy's
 * setspeed) back on SIGTERM or SIGINT. Usage: ondemand-sampler [--sampling-ms N] [--up-threshold PCT]
 * Prints "ready" on stdout once it governs every policy.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <poll.h>
#include <unistd.h>

#define CPUFREQ "/sys/devices/system/cpu/cpufreq"
#define MAX_CPUS 1024
#define MAX_POLICIES 256
#define MAX_FREQS 64

typedef struct Policy {
        char name[32];
        int cpus[MAX_CPUS];
        unsigned n_cpus;
        unsigned freqs_khz[MAX_FREQS];
        unsigned n_freqs;
        unsigned min_khz, max_khz;  /* cpuinfo_min_freq, cpuinfo_max_freq */
        unsigned cur_khz;           /* last written */
        char saved_governor[64];
        unsigned saved_setspeed_khz; /* 0: was not userspace */
        int setspeed_fd;
} Policy;

typedef struct CpuTimes {
        uint64_t busy, idle;
        int load;  /* percent, over the last interval with a tick (prev_load) */
        bool seen;
} CpuTimes;

static Policy policies[MAX_POLICIES];
static unsigned n_policies;
static CpuTimes last[MAX_CPUS];
static unsigned arg_sampling_ms = 10;
static unsigned arg_up_threshold = 80;

static int read_file(const char *path, char *buf, size_t size) {
        ssize_t n;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        n = read(fd, buf, size - 1);
        close(fd);
        if (n < 0)
                return -errno;
        buf[n] = 0;
        buf[strcspn(buf, "\n")] = 0;
        return 0;
}

static int write_file(const char *path, const char *value) {
        ssize_t n;
        int fd = open(path, O_WRONLY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        n = write(fd, value, strlen(value));
        close(fd);
        return n < 0 ? -errno : 0;
}

/* CPUFREQ/<policy>/<attr>; the attribute names here are short and a policy's name is checked at discovery. */
static void policy_path(const Policy *p, const char *attr, char path[static 128]) {
        (void) snprintf(path, 128, CPUFREQ "/%.31s/%.40s", p->name, attr);
}

static int policy_read(Policy *p, const char *attr, char *buf, size_t size) {
        char path[128];

        policy_path(p, attr, path);
        return read_file(path, buf, size);
}

static int policy_write(Policy *p, const char *attr, const char *value) {
        char path[128];

        policy_path(p, attr, path);
        return write_file(path, value);
}

static int policy_load(Policy *p) {
        char buf[4096], *s, *end;
        int r;

        if ((r = policy_read(p, "affected_cpus", buf, sizeof(buf))) < 0)
                return r;
        for (s = buf; *s && p->n_cpus < MAX_CPUS; s = end) {
                long cpu = strtol(s, &end, 10);

                if (end == s)
                        break;
                if (cpu >= 0 && cpu < MAX_CPUS)
                        p->cpus[p->n_cpus++] = (int) cpu;
        }
        if ((r = policy_read(p, "cpuinfo_min_freq", buf, sizeof(buf))) < 0)
                return r;
        p->min_khz = (unsigned) strtoul(buf, NULL, 10);
        if ((r = policy_read(p, "cpuinfo_max_freq", buf, sizeof(buf))) < 0)
                return r;
        p->max_khz = (unsigned) strtoul(buf, NULL, 10);
        if (policy_read(p, "scaling_available_frequencies", buf, sizeof(buf)) == 0)
                for (s = buf; *s && p->n_freqs < MAX_FREQS; s = end) {
                        unsigned long f = strtoul(s, &end, 10);

                        if (end == s)
                                break;
                        p->freqs_khz[p->n_freqs++] = (unsigned) f;
                }
        if (p->n_cpus == 0 || p->min_khz == 0 || p->max_khz < p->min_khz)
                return -EINVAL;
        return 0;
}

static int policy_take(Policy *p) {
        char buf[64], path[128];
        int r;

        if ((r = policy_read(p, "scaling_governor", p->saved_governor, sizeof(p->saved_governor))) < 0)
                return r;
        if (strcmp(p->saved_governor, "userspace") == 0 && policy_read(p, "scaling_setspeed", buf, sizeof(buf)) == 0)
                p->saved_setspeed_khz = (unsigned) strtoul(buf, NULL, 10);
        if ((r = policy_write(p, "scaling_governor", "userspace")) < 0)
                return r;
        policy_path(p, "scaling_setspeed", path);
        p->setspeed_fd = open(path, O_WRONLY | O_CLOEXEC);
        if (p->setspeed_fd < 0)
                return -errno;
        if (policy_read(p, "scaling_cur_freq", buf, sizeof(buf)) == 0)
                p->cur_khz = (unsigned) strtoul(buf, NULL, 10);
        return 0;
}

static void policy_restore(Policy *p) {
        char buf[32];

        if (p->setspeed_fd >= 0)
                close(p->setspeed_fd);
        p->setspeed_fd = -1;
        if (!p->saved_governor[0])
                return;
        if (p->saved_setspeed_khz > 0) {
                snprintf(buf, sizeof(buf), "%u", p->saved_setspeed_khz);
                (void) policy_write(p, "scaling_setspeed", buf);
        }
        if (policy_write(p, "scaling_governor", p->saved_governor) < 0)
                fprintf(stderr, "ondemand-sampler: %s: cannot put governor %s back: %m\n", p->name, p->saved_governor);
}

/* CPUFREQ_RELATION_C on the table: the closest frequency (cpufreq_table_find_index_c()); without a table,
 * the frequency itself. */
static unsigned resolve_c(const Policy *p, unsigned target_khz) {
        unsigned best = target_khz, best_d = UINT32_MAX;

        for (unsigned i = 0; i < p->n_freqs; i++) {
                unsigned d = p->freqs_khz[i] > target_khz ? p->freqs_khz[i] - target_khz : target_khz - p->freqs_khz[i];

                if (d < best_d)
                        best = p->freqs_khz[i], best_d = d;
        }
        return best;
}

/* od_update(): the next frequency for a load in percent. */
static unsigned od_next_khz(const Policy *p, unsigned load) {
        if (load > arg_up_threshold)
                return p->max_khz;
        return resolve_c(p, p->min_khz + load * (p->max_khz - p->min_khz) / 100);
}

/* One /proc/stat sample: each CPU's load in percent since the last one (-1: first sample or no time). */
static int sample(int stat_fd, int load[MAX_CPUS]) {
        static char buf[1 << 16];
        ssize_t n = pread(stat_fd, buf, sizeof(buf) - 1, 0);
        char *line;

        if (n < 0)
                return -errno;
        buf[n] = 0;
        for (int i = 0; i < MAX_CPUS; i++)
                load[i] = -1;
        for (line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                uint64_t v[10] = {}, busy = 0, idle;
                unsigned cpu;

                if (strncmp(line, "cpu", 3) != 0)
                        break;
                if (sscanf(line, "cpu%u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                           " %" SCNu64 " %" SCNu64, &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 9 ||
                    cpu >= MAX_CPUS)
                        continue;
                idle = v[3] + v[4]; /* idle + iowait: io_is_busy = 0 */
                for (int k = 0; k < 8; k++)
                        busy += v[k];
                busy -= idle;
                if (last[cpu].seen) {
                        uint64_t db = busy - last[cpu].busy, di = idle - last[cpu].idle;

                        /* No tick accounted in the interval: the previous load (dbs_update()'s prev_load). */
                        load[cpu] = db + di > 0 ? (int) (100 * db / (db + di)) : last[cpu].load;
                }
                last[cpu] = (CpuTimes) { .busy = busy, .idle = idle, .load = load[cpu] < 0 ? 0 : load[cpu], .seen = true };
        }
        return 0;
}

static void govern(const int load[MAX_CPUS]) {
        for (unsigned i = 0; i < n_policies; i++) {
                Policy *p = &policies[i];
                int max_load = -1;
                unsigned next;
                char buf[32];

                for (unsigned c = 0; c < p->n_cpus; c++)
                        if (load[p->cpus[c]] > max_load)
                                max_load = load[p->cpus[c]];
                if (max_load < 0)
                        continue;
                next = od_next_khz(p, (unsigned) max_load);
                if (next == p->cur_khz)
                        continue;
                snprintf(buf, sizeof(buf), "%u", next);
                if (pwrite(p->setspeed_fd, buf, strlen(buf), 0) < 0)
                        fprintf(stderr, "ondemand-sampler: %s: setspeed %u: %m\n", p->name, next);
                else
                        p->cur_khz = next;
        }
}

static int policies_load(void) {
        DIR *d = opendir(CPUFREQ);
        struct dirent *de;
        int r = 0;

        if (!d)
                return -errno;
        while ((de = readdir(d)) && n_policies < MAX_POLICIES) {
                Policy *p = &policies[n_policies];

                if (strncmp(de->d_name, "policy", 6) != 0 || strlen(de->d_name) >= sizeof(p->name))
                        continue;
                *p = (Policy) { .setspeed_fd = -1 };
                memcpy(p->name, de->d_name, strlen(de->d_name) + 1);
                r = policy_load(p);
                if (r < 0) {
                        fprintf(stderr, "ondemand-sampler: %s: %s\n", p->name, strerror(-r));
                        break;
                }
                n_policies++;
        }
        closedir(d);
        return r < 0 ? r : n_policies > 0 ? 0 : -ENODEV;
}

static int parse_args(int argc, char **argv) {
        static const struct option options[] = {
                { "sampling-ms", required_argument, NULL, 's' },
                { "up-threshold", required_argument, NULL, 'u' },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 's':
                        arg_sampling_ms = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'u':
                        arg_up_threshold = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                default:
                        return -EINVAL;
                }
        return arg_sampling_ms > 0 && arg_up_threshold <= 100 && optind == argc ? 0 : -EINVAL;
}

int main(int argc, char **argv) {
        struct itimerspec period = {};
        int load[MAX_CPUS], stat_fd, timer_fd, sig_fd, r = 0;
        sigset_t mask;

        if (parse_args(argc, argv) < 0) {
                fprintf(stderr, "usage: ondemand-sampler [--sampling-ms N] [--up-threshold PCT]\n");
                return 2;
        }
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        sig_fd = signalfd(-1, &mask, SFD_CLOEXEC);
        stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
        timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        if (sig_fd < 0 || stat_fd < 0 || timer_fd < 0) {
                perror("ondemand-sampler");
                return 1;
        }
        r = policies_load();
        if (r < 0) {
                fprintf(stderr, "ondemand-sampler: no usable cpufreq policy: %s\n", strerror(-r));
                return 1;
        }
        for (unsigned i = 0; i < n_policies && r >= 0; i++) {
                r = policy_take(&policies[i]);
                if (r < 0)
                        fprintf(stderr, "ondemand-sampler: %s: cannot take over: %s\n", policies[i].name, strerror(-r));
        }
        if (r >= 0) {
                period.it_interval.tv_nsec = (long) arg_sampling_ms % 1000 * 1000000;
                period.it_interval.tv_sec = arg_sampling_ms / 1000;
                period.it_value = period.it_interval;
                (void) timerfd_settime(timer_fd, 0, &period, NULL);
                (void) sample(stat_fd, load);
                printf("ready\n");
                fflush(stdout);
        }
        while (r >= 0) {
                struct pollfd fds[2] = { { .fd = timer_fd, .events = POLLIN }, { .fd = sig_fd, .events = POLLIN } };
                uint64_t expirations;

                if (poll(fds, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                if (fds[1].revents)
                        break;
                if (read(timer_fd, &expirations, sizeof(expirations)) < 0)
                        continue;
                if (sample(stat_fd, load) == 0)
                        govern(load);
        }
        for (unsigned i = 0; i < n_policies; i++)
                policy_restore(&policies[i]);
        return r < 0 ? 1 : 0;
}
