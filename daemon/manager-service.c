/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-service.c: the daemon as a service (issue 4: systemd): real-time scheduling, the log level, STATUS=. */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"
#include "manager-service.h"

/*
 * The event loop runs SCHED_FIFO at [daemon] realtime_priority (0: SCHED_OTHER): under load a normal-priority
 * reader is starved for ~100 ms (p99, `perf bench sched messaging`), SCHED_FIFO keeps it at a few ms
 * (shared/notes/platform.md). Done here rather than by the unit's CPUSchedulingPolicy= so that one documented
 * config key covers every way of running the daemon, a reload can change it, and a refusal is a clear warning.
 * The unit keeps CAP_SYS_NICE for it. SCHED_RESET_ON_FORK: no child inherits it.
 * Failure is not fatal: the daemon governs as a normal task.
 */
void manager_apply_realtime(int priority) {
        struct sched_param param = { .sched_priority = priority };
        int policy = priority > 0 ? SCHED_FIFO : SCHED_OTHER;

        if (sched_setscheduler(0, policy | SCHED_RESET_ON_FORK, &param) < 0) {
                if (errno == EPERM)
                        log_warning("Cannot run the event loop SCHED_FIFO %d (needs CAP_SYS_NICE or RLIMIT_RTPRIO "
                                    ">= %d; with CONFIG_RT_GROUP_SCHED, a cgroup with real-time runtime), running "
                                    "it as a normal task: the frequency may react late under load.",
                                    priority, priority);
                else
                        log_warning_errno(errno, "Cannot set the event loop's scheduling policy, ignoring: %m");
                return;
        }
        if (priority > 0)
                log_info("Event loop runs SCHED_FIFO, priority %d.", priority);
        else
                log_debug("Event loop runs SCHED_OTHER.");
}

/*
 * The log level: the command line's (--log-level, -q, -v) when given, at start and after every reload, so that
 * `schedfreqd -q` stays quiet whatever [daemon] log_level a reloaded file says; else the config's.
 */
void manager_apply_log_level(Manager *m) {
        log_set_max_level(m->opts.log_level_set ? m->opts.log_level : m->config.log_level);
}

/* STATUS= for `systemctl status`: what is governed and how the loop is scheduled. */
void manager_notify_status(Manager *m, const char *extra) {
        size_t n_managed = 0;
        int policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
        struct sched_param param = {};

        for (size_t i = 0; i < m->topology->n_policies; i++)
                n_managed += m->managed[i];
        (void) sched_getparam(0, &param);

        if (m->opts.observe)
                (void) sd_notifyf(0, "%sSTATUS=Observing %zu cpufreq policies (writing nothing)", extra, n_managed);
        else if (m->paused)
                (void) sd_notifyf(0, "%sSTATUS=Paused: %zu cpufreq policies handed back to their governors", extra,
                                  n_managed);
        else if (policy == SCHED_FIFO)
                (void) sd_notifyf(0, "%sSTATUS=Governing %zu of %zu cpufreq policies (event loop SCHED_FIFO %d)",
                                  extra, n_managed, m->topology->n_policies, param.sched_priority);
        else
                (void) sd_notifyf(0, "%sSTATUS=Governing %zu of %zu cpufreq policies (event loop not real-time)",
                                  extra, n_managed, m->topology->n_policies);
}
