/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-service.c: the daemon as a service (issue 4: systemd): real-time scheduling, the log level, STATUS=,
 * the statistics logged at exit. */

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "event-source.h"
#include "events.h"
#include "governor.h"
#include "latency.h"
#include "log.h"
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
                        log_warning("Cannot run the event loop SCHED_FIFO %d, running it as a normal task: the "
                                    "frequency may react late under load.\n"
                                    "SCHED_FIFO needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d (with "
                                    "CONFIG_RT_GROUP_SCHED, also a cgroup with real-time runtime).",
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

/* STATUS= for `systemctl status`: what is governed and how the loop is scheduled. */
void manager_notify_status(const Governed *g, const char *extra) {
        size_t n_managed = 0;
        int policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
        struct sched_param param = {};

        for (size_t i = 0; i < g->topology->n_policies; i++)
                n_managed += g->managed[i];
        (void) sched_getparam(0, &param);

        if (g->observe)
                (void) sd_notifyf(0, "%sSTATUS=Observing %zu cpufreq policies (writing nothing)", extra, n_managed);
        else if (g->paused)
                (void) sd_notifyf(0, "%sSTATUS=Paused: %zu cpufreq policies handed back to their governors", extra,
                                  n_managed);
        else if (policy == SCHED_FIFO)
                (void) sd_notifyf(0, "%sSTATUS=Governing %zu of %zu cpufreq policies (event loop SCHED_FIFO %d)",
                                  extra, n_managed, g->topology->n_policies, param.sched_priority);
        else
                (void) sd_notifyf(0, "%sSTATUS=Governing %zu of %zu cpufreq policies (event loop not real-time)",
                                  extra, n_managed, g->topology->n_policies);
}

/* At exit: what the daemon saw and did (events, decisions, writes, wake-ups, the proc connector, latency). */
void manager_log_stats(const Governed *g, uint64_t commits, const LatencyStats *latency, ProcConn *proc,
                       TaskNames *names) {
        const EngineStats *es = engine_stats(g->engine);
        bool decides = event_source_decides(g->source);
        EventSourceStats ss;

        event_source_stats(g->source, &ss);
        /*
         * One statement a line, each under 120 columns (scripts parse them: bench/bench-sources.sh summary(),
         * bench/lib-peers.sh peer_events()): the events as the source counted them, then what they decided.
         */
        if (decides)
                log_info("Events (%s, counted in the kernel): %" PRIu64 ", %" PRIu64 " decision records read (%" PRIu64
                         " lost).", ss.name, ss.events, ss.records, ss.lost);
        else
                log_info("Events (%s): %" PRIu64 " (late %" PRIu64 ", lost %" PRIu64 " in %" PRIu64 " ring overflows, "
                         "lost switches %" PRIu64 ").", ss.name, es->events, es->late_events, ss.lost, es->resyncs,
                         es->lost_switches);
        if (decides)
                log_info("Decisions: %" PRIu64 " local, %" PRIu64 " remote, %" PRIu64 " deferred (%" PRIu64 " remote "
                         "events held in the kernel).", es->decisions[DECISION_LOCAL], es->decisions[DECISION_REMOTE],
                         es->deferred, ss.deferred);
        else
                log_info("Decisions: %" PRIu64 " local, %" PRIu64 " remote, %" PRIu64 " deferred.",
                         es->decisions[DECISION_LOCAL], es->decisions[DECISION_REMOTE], es->deferred);
        log_info("Frequency writes: %" PRIu64 ".", commits);
        if (decides)
                log_info("Wake-ups: %" PRIu64 " ticks, %" PRIu64 " drains of the decision ring (%" PRIu64 " woken by it).",
                         es->ticks, ss.drains, ss.wakeups);
        else
                log_info("Wake-ups: %" PRIu64 " ticks, %" PRIu64 " ring drains (%" PRIu64 " woken by a ring), %" PRIu64
                         " lazy switches (%s).",
                         es->ticks, ss.drains, ss.wakeups, ss.lazy_switches, ss.lazy ? "lazy now" : "not lazy now");
        if (proc) {
                const ProcConnStats *pc = proc_conn_stats(proc);

                log_info("Proc connector: %" PRIu64 " messages, %" PRIu64 " overruns, %" PRIu64 " rescans; %zu task names.",
                         pc->messages, pc->overruns, pc->rescans, task_names_size(names));
        } else
                log_info("Proc connector: unavailable.");
        if (latency->count > 0)
                log_info("Event-to-write latency (µs) over %" PRIu64 " event-triggered writes: mean %" PRIu64
                         ", p50 < %" PRIu64 ", p99 < %" PRIu64 ", max %" PRIu64 ".",
                         latency->count, latency->sum_ns / latency->count / 1000,
                         latency_quantile_usec(latency, 500), latency_quantile_usec(latency, 990),
                         latency->max_ns / 1000);
}
