/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manager-watch.c: what became of the governed policies (see manager-watch.h and actuator.h).
 *
 * Kernel behaviour this relies on (drivers/cpufreq/cpufreq.c):
 *  - show()/store(): every attribute of an inactive policy (no online CPU) fails with -EBUSY; the policy and
 *    its directory stay, and cpufreq_online() gives it back its last governor when a CPU returns;
 *  - store_scaling_setspeed(): -EINVAL when the governor is not userspace;
 *  - store_scaling_{min,max}_freq(): a user frequency-QoS request; the userspace governor clamps its speed to
 *    the new limits itself (cpufreq_userspace_policy_limits() in cpufreq_userspace.c).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "actuator.h"
#include "event-source.h"
#include "governor.h"
#include "log.h"
#include "macro.h"
#include "manager-watch.h"
#include "time-util.h"
#include "topology.h"

/* At most this often, and only at a wake-up while some CPU is busy: a changed limit matters when a frequency
 * is chosen, and an idle machine chooses none (each read is a wake-up of its own where sysfs is FUSE). A
 * change made while nothing happens is noticed at the next busy wake-up. */
#define WATCH_MIN_INTERVAL_USEC (1000 * 1000)

enum {
        WATCH_MIN,
        WATCH_MAX,
        WATCH_GOVERNOR,
        _WATCH_FILES,
};

static const char *const watch_names[_WATCH_FILES] = {
        [WATCH_MIN] = "scaling_min_freq",
        [WATCH_MAX] = "scaling_max_freq",
        [WATCH_GOVERNOR] = "scaling_governor",
};

/* A sysfs attribute read again through a kept-open fd: one pread, no path walk; the trailing newline cut. */
static int read_fd(int fd, char *buf, size_t size) {
        ssize_t n;

        n = pread(fd, buf, size - 1, 0);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

static int read_u32_fd(int fd, uint32_t *ret) {
        char buf[32], *end;
        unsigned long v;
        int r;

        r = read_fd(fd, buf, sizeof(buf));
        if (r < 0)
                return r;
        errno = 0;
        v = strtoul(buf, &end, 10);
        if (errno != 0 || end == buf || v > UINT32_MAX)
                return -EINVAL;
        *ret = (uint32_t) v;
        return 0;
}

/* Where policy @i's attributes are: as discovery found cpufreq/policyN, which stays put whatever the hotplug
 * (one stat fewer per file); else looked up now (the legacy cpuM/cpufreq moves with the first online CPU). */
static int watch_dir(const Governed *g, size_t i, char **ret) {
        const PolicyDesc *p = &g->topology->policies[i];
        unsigned cpu;

        if (p->sysfs_found && p->sysfs_policy_dir)
                return cpufreq_sysfs_policy_locate(p, &cpu, ret);
        return cpufreq_sysfs_policy_dir(p, ret);
}

/* Policy @i's watched files, opened on first use and kept. */
static int watch_fds(const Governed *g, PolicyWatch *w, size_t i, int **ret) {
        if (!w->fds) {
                w->fds = malloc(_WATCH_FILES * MAX(g->topology->n_policies, (size_t) 1) * sizeof(int));
                if (!w->fds)
                        return -ENOMEM;
                for (size_t k = 0; k < _WATCH_FILES * g->topology->n_policies; k++)
                        w->fds[k] = -EBADF;
        }
        for (unsigned k = 0; k < _WATCH_FILES; k++) {
                int *fd = &w->fds[_WATCH_FILES * i + k];
                _cleanup_free_ char *dir = NULL, *path = NULL;

                if (*fd >= 0)
                        continue;
                if (watch_dir(g, i, &dir) < 0 ||
                    asprintf(&path, "%s/%s", dir, watch_names[k]) < 0) {
                        path = NULL;
                        return -ENOMEM;
                }
                *fd = open(path, O_RDONLY | O_CLOEXEC);
                if (*fd < 0)
                        return -errno;
        }
        *ret = &w->fds[_WATCH_FILES * i];
        return 0;
}

void manager_watch_close(const Governed *g, PolicyWatch *w) {
        if (!w->fds)
                return;
        for (size_t k = 0; k < _WATCH_FILES * g->topology->n_policies; k++)
                closep(&w->fds[k]);
        free(w->fds);
        w->fds = NULL;
}

static void watch_release(Governed *g, unsigned i, const char *governor) {
        int r;

        (void) engine_set_policy_managed(g->engine, i, false);
        r = actuator_release(g->actuator, i);
        if (r < 0)
                log_warning_errno(r, "policy%u: cannot update the state file: %m", g->topology->policies[i].id);
        log_notice("policy%u: governor switched to '%s' by another tool: released to it, no longer governed.\n"
                   "It stays as that tool sets it, also when schedfreqd stops.", g->topology->policies[i].id,
                   governor);
}

/* Enters @state (found by a failed write or a read); one log line when the state is new. */
static void watch_fail(Governed *g, unsigned i, PolicyHealthState state, int error, const char *governor,
                       uint64_t now_usec) {
        unsigned id = g->topology->policies[i].id;

        if (!policy_health_failed(&g->health[i], state, error, now_usec))
                return;
        if (state == POLICY_RELEASED)
                watch_release(g, i, governor);
        else if (state == POLICY_OFFLINE)
                log_notice_errno(error, "policy%u: all its CPUs are offline (%m): governing it again when one "
                                 "comes back.", id);
        else
                log_warning_errno(error, "policy%u: cannot write scaling_setspeed (%m): backing off.\n"
                                  "Retrying after 10 ms, then doubling up to every %u s.", id,
                                  (unsigned) (POLICY_BACKOFF_MAX_USEC / 1000000));
}

/*
 * What policy @i is, found out with one read of its governor after a write failed with @write_error (0: a look,
 * no write): not userspace any more means another tool took the policy; EBUSY means the policy is inactive, all
 * its CPUs offline; userspace again after offline means it is back; anything else (EIO, EAGAIN, an EBUSY of the
 * write alone) is a fault to back off from (policy_health_diagnose()).
 */
static PolicyHealthState watch_diagnose(Governed *g, unsigned i, int write_error, char *governor, size_t size) {
        int r;

        r = actuator_read_governor(g->actuator, i, governor, size);
        return policy_health_diagnose(g->health[i].state, write_error, r, r >= 0 && streq(governor, "userspace"));
}

/* Policy @i is governed again; one log line saying why (@how), or, with NULL, what it recovered from. */
static void watch_succeeded(Governed *g, unsigned i, uint64_t now_usec, const char *how) {
        PolicyHealth *h = &g->health[i];
        uint64_t failures = h->write_errors;
        PolicyHealthState was = h->state;

        if (policy_health_succeeded(h, now_usec))
                log_info("policy%u: %s, governed again (%" PRIu64 " failed writes so far).",
                         g->topology->policies[i].id,
                         how ?: was == POLICY_OFFLINE ? "back online" : "writes work again", failures);
}

/* Policy @i is active on userspace again: the engine takes its current frequency (the driver's, not our last
 * write) and decides anew at its next event. */
static void watch_back(Governed *g, unsigned i, uint64_t now_usec, const char *how) {
        uint32_t cur_khz = 0;

        (void) actuator_read_khz(g->actuator, i, &cur_khz);
        (void) engine_policy_resync(g->engine, i, cur_khz);
        watch_succeeded(g, i, now_usec, how);
}

void manager_watch_write_failed(Governed *g, unsigned i, int error, uint64_t now_usec) {
        char governor[TOPOLOGY_GOVERNOR_MAX] = "";
        PolicyHealthState state;

        state = watch_diagnose(g, i, error, governor, sizeof(governor));
        /* Offline, and back between the write and the read: governed again, as when the poll or the online
         * uevent sees it first (which one comes first is a race: test-faults' "cpu1 online again"). */
        if (state == POLICY_GOVERNED)
                watch_back(g, i, now_usec, "back online");
        else
                watch_fail(g, i, state, error, governor, now_usec);
}

void manager_watch_write_succeeded(Governed *g, unsigned i, uint64_t now_usec) {
        watch_succeeded(g, i, now_usec, NULL);
}

/*
 * An offline policy comes back without telling us (with its last governor, userspace), and its frequency then
 * is the driver's, not our last write. So once its retry time has come, one read of its governor says whether
 * it is back; if so the engine takes its current frequency and decides anew at its next event. @how: the log
 * line's reason when it is back (NULL: from its state).
 */
static void watch_offline(Governed *g, unsigned i, uint64_t now_usec, const char *how) {
        char governor[TOPOLOGY_GOVERNOR_MAX];
        PolicyHealthState state;

        if (!policy_health_may_write(&g->health[i], now_usec))
                return;
        state = watch_diagnose(g, i, 0, governor, sizeof(governor));
        if (state == POLICY_OFFLINE || state == POLICY_RELEASED) {
                watch_fail(g, i, state, state == POLICY_OFFLINE ? -EBUSY : -EINVAL, governor, now_usec);
                return;
        }
        watch_back(g, i, now_usec, how);
}

/* The index of @cpu's policy when this daemon manages it and has not released it; -ENOENT otherwise. */
static int managed_policy_of_cpu(const Governed *g, unsigned cpu) {
        const PolicyDesc *p = topology_policy_of_cpu(g->topology, cpu);
        unsigned i;

        if (!p)
                return -ENOENT;
        i = (unsigned) (p - g->topology->policies);
        if (!g->managed[i] || g->health[i].state == POLICY_RELEASED)
                return -ENOENT;
        return (int) i;
}

/* How many of policy @i's CPUs the engine has online. */
static unsigned policy_cpus_online(const Governed *g, unsigned i) {
        unsigned n = 0;

        for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &g->topology->policies[i].cpus) && engine_cpu_online(g->engine, c))
                        n++;
        return n;
}

/* Governed or backing off (a fault, or a write that met it half-way through going), the policy is offline now
 * when @cpu was its last CPU: the kernel has made it inactive (cpufreq_offline()), its files answer EBUSY. */
void manager_watch_cpu_offline(Governed *g, unsigned cpu, uint64_t now_usec) {
        int i = managed_policy_of_cpu(g, cpu);

        if (g->observe || i < 0 || g->health[i].state == POLICY_OFFLINE ||
            policy_cpus_online(g, (unsigned) i) > 0)
                return;
        watch_fail(g, (unsigned) i, POLICY_OFFLINE, -EBUSY, NULL, now_usec);
}

/* @cpu is its policy's first CPU back: the policy is active again. Offline, or backing off because a write met
 * it half-way through coming back (EBUSY, then a governor read that found it back), which would wait for a
 * retry that only a later decision makes: either way, look now. */
void manager_watch_cpu_online(Governed *g, unsigned cpu, uint64_t now_usec) {
        int i = managed_policy_of_cpu(g, cpu);

        if (g->observe || i < 0 || g->health[i].state == POLICY_GOVERNED ||
            policy_cpus_online(g, (unsigned) i) != 1)
                return;
        g->health[i].retry_usec = now_usec;
        watch_offline(g, (unsigned) i, now_usec, "back online");
}

/* A governed policy's limits and governor, re-read. Like sugov_limits() (kernel/sched/cpufreq_schedutil.c) a
 * limits change is applied at once, bypassing the rate limit. */
static void watch_governed(Governed *g, PolicyWatch *w, unsigned i, uint64_t now_usec) {
        char governor[TOPOLOGY_GOVERNOR_MAX];
        uint32_t min_khz, max_khz;
        PolicyStats ps;
        int *fds = NULL, r;

        if (engine_policy_stats(g->engine, i, &ps) < 0 || watch_fds(g, w, i, &fds) < 0)
                return;
        /* Observe mode holds nothing that another governor or an offline policy could take away. */
        r = g->observe ? -EOPNOTSUPP : read_fd(fds[WATCH_GOVERNOR], governor, sizeof(governor));
        if (r == -EBUSY) {
                watch_fail(g, i, POLICY_OFFLINE, r, NULL, now_usec);
                return;
        }
        if (r >= 0 && !streq(governor, "userspace")) {
                watch_fail(g, i, POLICY_RELEASED, -EINVAL, governor, now_usec);
                return;
        }
        if (read_u32_fd(fds[WATCH_MIN], &min_khz) < 0 || read_u32_fd(fds[WATCH_MAX], &max_khz) < 0)
                return;
        if (min_khz == ps.min_khz && max_khz == ps.max_khz)
                return;
        log_info("policy%u: scaling limits changed to %" PRIu32 "..%" PRIu32 " kHz.", g->topology->policies[i].id,
                 min_khz, max_khz);
        (void) engine_set_limits(g->engine, i, min_khz, max_khz, monotonic_ns());
}

/* Something runs: the model's CPUs are busy (perf), or a deciding source woke us (bpf: its decisions, and at
 * most once a second while scheduler events happen, event-source-bpf.c). An idle machine reads nothing. */
static bool watch_busy(const Governed *g) {
        return g->source && event_source_decides(g->source) ? true : engine_busy(g->engine);
}

void manager_watch_poll(Governed *g, PolicyWatch *w, uint64_t now_usec) {
        if (g->paused || !watch_busy(g) || now_usec - w->checked_usec < WATCH_MIN_INTERVAL_USEC)
                return;
        w->checked_usec = now_usec;
        for (unsigned i = 0; i < g->topology->n_policies; i++) {
                if (!g->managed[i])
                        continue;
                if (g->health[i].state == POLICY_GOVERNED)
                        watch_governed(g, w, i, now_usec);
                else if (g->health[i].state == POLICY_OFFLINE)
                        watch_offline(g, i, now_usec, NULL);
        }
}
