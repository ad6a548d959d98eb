/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manager.c: the daemon's event loop and the objects it owns. Scheduler events arrive from the event source
 * (event-source.h): with perf, as events that go through the engine (model + governor, engine.c); with bpf, as
 * decisions the kernel side took, which go through the engine's bookkeeping. Either way the decisions are
 * written by the actuator (actuator.c). This file only wires them: it holds no policy of its own.
 *
 * Sources on the sd-event loop: the event source's fds and timers (its own), the tick timer (armed only while
 * some CPU of the model runs a task, as the kernel ticks only busy CPUs), a post source that runs after every
 * wake-up (arms the tick, the event source's bookkeeping, re-reads the scaling limits), SIGTERM/SIGINT
 * (restore and exit), SIGHUP (reload) and the systemd watchdog. Nothing is periodic while every CPU sleeps.
 */

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "actuator.h"
#include "config.h"
#include "crash-point.h"
#include "event-source.h"
#include "events.h"
#include "governor.h"
#include "kernel-version.h"
#include "latency.h"
#include "log.h"
#include "manager-hotplug.h"
#include "manager-privileges.h"
#include "manager-rules.h"
#include "manager-sessions.h"
#include "manager-service.h"
#include "manager-watch.h"
#include "manager.h"
#include "time-util.h"
#include "topology.h"
#include "version.h" /* generated: $(BUILD)/include/version.h */

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        manager_hotplug_stop(&m->hotplug);
        proc_conn_free(m->proc);
        task_names_free(m->task_names);
        event_source_free(m->gov.source);
        engine_free(m->gov.engine);
        actuator_free(m->gov.actuator);
        observer_free(m->observer);
        sd_event_source_disable_unref(m->tick_source);
        sd_event_source_disable_unref(m->post_source);
        manager_watch_close(&m->gov, &m->watch);
        sd_event_source_disable_unref(m->sigterm_source);
        sd_event_source_disable_unref(m->sigint_source);
        sd_event_source_disable_unref(m->sighup_source);
        sd_event_unref(m->event);
        closep(&m->lock_fd);
        topology_free(m->gov.topology);
        decision_log_done(&m->decisions);
        free(m->gov.managed);
        free(m->gov.health);
        free(m);
        return NULL;
}

/* The command line's log level when given, else the config's (at start and after every reload). */
static void manager_apply_log_level(const Manager *m) {
        log_set_max_level(m->opts.log_level_set ? m->opts.log_level : m->config.log_level);
}

/*
 * --print-decisions is a view on the daemon, not its job. When stdout fails (its reader went away, as with
 * `schedfreqd --print-decisions | head -1`: EPIPE, SIGPIPE being ignored; or a full disk), printing stops
 * with one warning and governing goes on. Stopping instead would hand every CPU back to its governor because
 * a pager was closed, and a half-written line is no reason to change the machine's frequencies; the daemon
 * still ends on SIGTERM/SIGINT (^C in the terminal of that pipeline), restoring everything.
 */
static void manager_print_decision(Manager *m, const Decision *d) {
        int r;

        decision_print_details(stdout, d, m->gov.topology);
        r = fflush(stdout) != 0 ? -errno : ferror(stdout) ? -EIO : 0;
        if (r >= 0)
                return;
        log_warning_errno(r, "Cannot print decisions on stdout (%m): no longer printing them, still governing.");
        m->opts.print_decisions = false;
}

/* The name of @pid as the proc connector knows it now (for the decision log), or NULL. */
static bool manager_needs_proc_conn(const Manager *m, const Config *c);
static int manager_start_proc_conn(Manager *m, const Config *c);

static const char *manager_task_comm(Manager *m, int32_t pid, TaskName *buf) {
        if (pid <= 0 || !m->task_names)
                return NULL;
        /* Without the connector's stream (manager_start_proc_conn()), from /proc at the decision. */
        if (m->proc ? task_names_lookup(m->task_names, pid, buf) < 0 : task_names_read(m->task_names, pid, buf) < 0)
                return NULL;
        return buf->comm[0] != '\0' ? buf->comm : NULL;
}

/* Observe mode: a line that could not be printed (the reader went away) stops the lines, said once. */
static void manager_observer_check(Manager *m) {
        int r = observer_error(m->observer);

        if (r >= 0 || m->observer_print_failed)
                return;
        m->observer_print_failed = true;
        log_warning_errno(r, "Cannot print on stdout (%m): no longer printing the comparison, still observing.");
}

/* A decision in force (written at @at_ns, or observed): into the decision log, and printed if asked. */
static void manager_decision_done(Manager *m, const Decision *d, uint64_t at_ns) {
        TaskName name;

        decision_log_append(&m->decisions, d, at_ns, manager_task_comm(m, d->pid, &name));
        if (m->opts.print_decisions)
                manager_print_decision(m, d);
}

/* Observe mode: the decision is shown beside the kernel's choice and written nowhere; for the engine it holds. */
static int on_decision_observed(Manager *m, const Decision *d) {
        observer_ours(m->observer, d->policy_index, d->time_ns, d->new_khz);
        manager_observer_check(m);
        manager_decision_done(m, d, monotonic_ns());
        return 0;
}

/* Engine → actuator. Runs on the hot path: no logging above debug, except when a policy changes health. */
static int on_decision(const Decision *d, void *userdata) {
        Manager *m = ASSERT_PTR(userdata);
        uint64_t now_usec = monotonic_ns() / 1000;
        int r;

        if (m->opts.observe)
                return on_decision_observed(m, d);

        if (!policy_health_may_write(&m->gov.health[d->policy_index], now_usec))
                return -EAGAIN; /* the old frequency stays in force; the engine tries again later */
        r = actuator_set_khz(m->gov.actuator, d->policy_index, d->new_khz);
        if (r < 0) {
                manager_watch_write_failed(&m->gov, d->policy_index, r, now_usec);
                return r;
        }
        if (_unlikely_(m->gov.health[d->policy_index].state != POLICY_GOVERNED))
                manager_watch_write_succeeded(&m->gov, d->policy_index, now_usec);

        uint64_t written_ns = monotonic_ns();

        m->commits++;
        if (d->event != _SCHED_EVENT_TYPE_INVALID)
                latency_record(&m->latency, written_ns - d->time_ns);
        manager_decision_done(m, d, written_ns);
        return 0;
}

/*
 * The tick comes on a fixed grid of tick periods on CLOCK_MONOTONIC, as jiffies do, so every busy CPU is ticked
 * in the same wake-up (one timer for all of them: the kernel's per-CPU ticks run on their own CPUs, ours would
 * each cost a wake-up). Armed while some CPU is busy.
 */
static int tick_arm(Manager *m) {
        uint64_t period_ns = engine_tick_period_ns(m->gov.engine), next_ns;
        int r;

        next_ns = (monotonic_ns() / period_ns + 1) * period_ns;
        r = sd_event_source_set_time(m->tick_source, next_ns / 1000);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(m->tick_source, SD_EVENT_ONESHOT);
}

static int tick_ensure(Manager *m) {
        int enabled = SD_EVENT_OFF;

        if (!engine_busy(m->gov.engine))
                return 0;
        (void) sd_event_source_get_enabled(m->tick_source, &enabled);
        return enabled == SD_EVENT_OFF ? tick_arm(m) : 0;
}

/*
 * The daemon is the governor's worker: it runs SCHED_FIFO so that it is not starved, but like the kernel's
 * sugov:N kthread (SCHED_DEADLINE with SCHED_FLAG_SUGOV, kernel/sched/cpufreq_schedutil.c) its own running
 * must not make its CPU ask for the maximum frequency, or every wake-up of the daemon would raise it. Its
 * time still counts as ordinary (CFS-like) utilisation.
 */
#define NORMAL_PRIO 120 /* DEFAULT_PRIO, include/linux/sched/prio.h */

static const SchedEvent *event_without_own_rt(const SchedEvent *ev, pid_t self, SchedEvent *buf) {
        if (ev->type != SCHED_EVENT_SWITCH || (ev->sw.prev_pid != self && ev->sw.next_pid != self))
                return ev;
        *buf = *ev;
        if (buf->sw.prev_pid == self)
                buf->sw.prev_prio = NORMAL_PRIO;
        if (buf->sw.next_pid == self)
                buf->sw.next_prio = NORMAL_PRIO;
        return buf;
}

/*
 * A ring overflowed (the daemon was starved, or a burst outran ring_pages): the CPU's model is rebuilt from
 * the next events, and governing goes on. Said once per CPU at warning level (with the knob), then at debug.
 */
static int on_events_lost(int cpu, uint64_t n_lost, uint64_t at_ns, void *userdata) {
        Manager *m = ASSERT_PTR(userdata);
        int r;

        r = engine_cpu_resync(m->gov.engine, cpu, at_ns);
        if (r < 0)
                return 0; /* a CPU outside the model: nothing to resync */
        if (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &m->lost_warned)) {
                CPU_SET(cpu, &m->lost_warned);
                log_warning("CPU %d: %" PRIu64 " scheduler events lost (its perf ring was full): its model is rebuilt "
                            "from the next events.\nIf this repeats, raise ring_pages in [events] (now %u).", cpu,
                            n_lost, m->config.ring_pages);
        } else
                log_debug("CPU %d: %" PRIu64 " scheduler events lost, model resynced.", cpu, n_lost);
        return 0;
}

static int on_sched_event(const SchedEvent *ev, void *userdata) {
        Manager *m = ASSERT_PTR(userdata);
        SchedEvent buf;

        if (ev->type == SCHED_EVENT_CPU_FREQUENCY) {
                if (m->observer) {
                        (void) observer_kernel(m->observer, ev->freq.cpu_id, ev->time_ns, ev->freq.khz);
                        manager_observer_check(m);
                }
                return 0;
        }

        /* The tick, if an event made a CPU busy, is armed once per wake-up by on_post(). */
        return engine_event(m->gov.engine, event_without_own_rt(ev, m->self_pid, &buf));
}

/* A decision the BPF source took in the kernel: the same write and bookkeeping as the model's (on_decision()). */
static int on_source_decision(const Decision *d, void *userdata) {
        Manager *m = ASSERT_PTR(userdata);

        return engine_apply_decision(m->gov.engine, d);
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = ASSERT_PTR(userdata);
        int r;

        /* Apply everything recorded up to now before advancing the model's clock to now. */
        r = event_source_drain(m->gov.source);
        if (r < 0)
                log_warning_errno(r, "Failed to drain the event source, ignoring: %m");

        r = engine_tick(m->gov.engine, monotonic_ns());
        if (r < 0)
                return log_error_errno(r, "Engine tick failed: %m");
        if (r > 0)
                return tick_arm(m);
        return 0; /* every CPU idle: the event that makes one busy re-arms the tick (on_post()) */
}



/*
 * tick_ms = auto: the running kernel's tick (TICK_NSEC from its CONFIG_HZ, read once at start-up: it cannot change
 * under a running kernel), else CONFIG_HZ=250's. Every tick user reads the config this leaves: the engine
 * (task_tick_fair()'s period, the iowait boost's reset, the silence of 3 ticks), the tick timer, the BPF side.
 * Returns whether it was auto.
 */
static bool manager_tick_resolve(const Manager *m, Config *c) {
        if (c->tick_usec > 0)
                return false;
        c->tick_usec = MAX((m->kernel_hz.tick_ns + 500) / 1000, (uint64_t) 1);
        return true;
}

/* The tick timer's accuracy, a sixteenth of a tick: sd-event's default (250 ms) would coalesce it away. */
static uint64_t tick_accuracy_usec(const Config *c) {
        return MAX(config_tick_ns(c) / 16000, (uint64_t) 1);
}

/* One line saying the tick in force and where it came from. */
static void manager_log_tick(const Manager *m, const Config *c, bool from_kernel) {
        const KernelHz *k = &m->kernel_hz;
        char tick[32], kernel_tick[32];

        kernel_hz_format_tick(config_tick_ns(c), tick);
        if (from_kernel && k->found)
                log_info("Tick: %s (CONFIG_HZ=%u, %s).", tick, k->hz, k->source);
        else if (from_kernel)
                log_info("Tick: %s (%s: the default, CONFIG_HZ=%u).", tick, k->source, k->hz);
        else {
                kernel_hz_format_tick(k->tick_ns, kernel_tick);
                log_info("Tick: %s ([governor] tick_ms; the kernel's: %s, %s%u%s%s).", tick, kernel_tick,
                         k->found ? "CONFIG_HZ=" : "the default CONFIG_HZ=", k->hz, k->found ? ", " : "",
                         k->found ? k->source : "");
        }
}

/* Policies the configuration names and this machine lacks: a warning each, naming FILE:LINE; they are ignored. */
static void manager_warn_missing_policies(Manager *m, const Config *c) {
        _cleanup_free_ char *warnings = NULL;
        int n;

        n = config_check_topology(c, m->gov.topology, &warnings);
        if (n < 0) {
                log_warning_errno(n, "Cannot check the configuration against the cpufreq policies, ignoring: %m");
                return;
        }
        /* One log line per warning, so that journald gives each its priority. */
        for (char *line = n > 0 ? warnings : NULL, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                log_warning("%s, ignoring.", line);
        }
}

int manager_reload(Manager *m, char **ret_error) {
        _cleanup_free_ char *error = NULL;
        bool from_kernel = false;
        Config c;
        int r;

        (void) sd_notify(0, "RELOADING=1\nSTATUS=Reloading configuration…");

        r = config_load(m->opts.config_path, !m->opts.config_must_exist, &c, &error);
        if (r < 0) {
                log_error("Configuration rejected, keeping the running one:\n%s", error ? error : strerror(-r));
                goto finish;
        }
        manager_warn_missing_policies(m, &c);
        from_kernel = manager_tick_resolve(m, &c);
        c.kernel_version_code = m->config.kernel_version_code;

        r = engine_reconfigure(m->gov.engine, &c);
        if (r < 0) {
                log_error_errno(r, "Failed to apply the new configuration, keeping the running one: %m");
                goto finish;
        }
        crash_point("reload");
        r = event_source_reconfigure(m->gov.source, &c);
        if (r < 0)
                log_warning_errno(r, "Failed to apply the new event settings, ignoring: %m");
        if (c.event_source != m->config.event_source && m->opts.events_source < 0)
                log_notice("[events] source changed to %s: it applies at the next start (running on %s).",
                           event_source_type_to_string(c.event_source), manager_source_name(m));
        /* Rules where there were none: the proc connector's stream is needed now (its start matches them). */
        if (m->proc_unused && manager_needs_proc_conn(m, &c)) {
                r = manager_start_proc_conn(m, &c);
                if (r < 0)
                        log_warning_errno(r, "Failed to subscribe to the proc connector, ignoring: %m");
        }
        /* The engine forgot every task's rule: match them again, from the proc connector's table. */
        r = manager_rules_scan(&m->gov, m->task_names);
        if (r < 0)
                log_warning_errno(r, "Failed to match the rules against the running tasks, ignoring: %m");
        r = 0;

        if (c.realtime_priority != m->config.realtime_priority)
                manager_apply_realtime(c.realtime_priority);
        if (c.tick_usec != m->config.tick_usec) {
                manager_log_tick(m, &c, from_kernel);
                (void) sd_event_source_set_time_accuracy(m->tick_source, tick_accuracy_usec(&c));
        }
        m->config = c;
        manager_apply_log_level(m);
        log_info("Configuration reloaded from %s.", m->opts.config_path);
finish:
        manager_notify_status(&m->gov, "READY=1\n");
        if (r < 0 && ret_error) {
                if (!error && asprintf(&error, "%s: %s", m->opts.config_path, strerror(-r)) < 0)
                        error = NULL;
                *ret_error = TAKE_PTR(error);
        }
        return r;
}

int manager_pause(Manager *m, char **ret_error) {
        int r;

        if (m->gov.paused)
                return 0;
        engine_pause(m->gov.engine);
        r = actuator_restore(m->gov.actuator);
        if (r < 0) {
                if (ret_error && asprintf(ret_error, "Failed to hand the policies back: %s", strerror(-r)) < 0)
                        *ret_error = NULL;
                return log_error_errno(r, "Failed to hand the cpufreq policies back: %m");
        }
        m->gov.paused = true;
        manager_notify_status(&m->gov, "");
        log_info("Paused: cpufreq policies handed back to their governors.");
        return 0;
}

int manager_resume(Manager *m, char **ret_error) {
        _cleanup_free_ char *error = NULL;
        int r;

        if (!m->gov.paused)
                return 0;
        r = actuator_reacquire(m->gov.actuator, &error);
        if (r < 0) {
                log_error_errno(r, "Failed to take the cpufreq policies over again: %s", error ? error : strerror(-r));
                if (ret_error)
                        *ret_error = TAKE_PTR(error);
                return r;
        }
        engine_resume(m->gov.engine, NULL);
        m->gov.paused = false;
        manager_notify_status(&m->gov, "");
        log_info("Resumed: cpufreq policies taken over again.");
        return tick_ensure(m);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        (void) manager_reload(ASSERT_PTR(userdata), NULL);
        return 0;
}

static int on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = ASSERT_PTR(userdata);

        log_info("Received SIG%s, %s.", sigabbrev_np((int) si->ssi_signo),
                 m->opts.observe ? "exiting" : "restoring the cpufreq policies and exiting");
        return sd_event_exit(m->event, 0);
}

/* After every wake-up of the loop (events, tick, bus, signals): the bookkeeping that must not run per event. */
static int on_post(sd_event_source *s, void *userdata) {
        Manager *m = ASSERT_PTR(userdata);
        uint64_t now_usec = monotonic_ns() / 1000;
        int r;

        /* The source first: perf's model may find a lost switch-out, which is not a reason to tick (demand.c). */
        event_source_post(m->gov.source, now_usec);
        r = tick_ensure(m);
        if (r < 0)
                return log_error_errno(r, "Failed to arm the tick: %m");
        manager_watch_poll(&m->gov, &m->watch, now_usec);
        return 0;
}

static int manager_add_signals(Manager *m) {
        sigset_t mask;
        int r;

        /* sd-event wants the signals blocked before it turns them into a signalfd (sd_event_add_signal(3)). */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return -errno;

        r = sd_event_add_signal(m->event, &m->sigterm_source, SIGTERM, on_exit_signal, m);
        if (r < 0)
                return r;
        r = sd_event_add_signal(m->event, &m->sigint_source, SIGINT, on_exit_signal, m);
        if (r < 0)
                return r;
        return sd_event_add_signal(m->event, &m->sighup_source, SIGHUP, on_sighup, m);
}

static int manager_load(Manager *m) {
        _cleanup_free_ char *error = NULL;
        size_t n_managed = 0;
        int r;

        /* Only the default path may be absent: a file named with -c that is not there is a typo, not "defaults". */
        r = config_load(m->opts.config_path, !m->opts.config_must_exist, &m->config, &error);
        if (r < 0) {
                log_error("Invalid configuration:\n%s", error ? error : strerror(-r));
                return r;
        }
        manager_apply_log_level(m);

        /* tick_ms = auto: read once; a file that is not there or says nothing is the default's reason. */
        (void) kernel_hz_find(NULL, NULL, &m->kernel_hz);
        manager_log_tick(m, &m->config, manager_tick_resolve(m, &m->config));
        /* For the rate-limit rule by kernel version; unparsable leaves 0, the newest rule, and the log says so. */
        (void) kernel_version_running(&m->config.kernel_version_code);

        r = cpufreq_discover(&m->gov.topology);
        if (r == -ENODEV)
                return log_error_errno(r, "No cpufreq policies under /sys/devices/system/cpu: this machine has no\n"
                                          "cpufreq driver (a VM or container?), nothing to %s.\n"
                                          "To watch schedfreqd decide on this machine's real scheduler events over\n"
                                          "an emulated cpufreq tree: make run (in the source tree).\n"
                                          "To replay a trace: schedfreqd replay --topology FILE TRACE.",
                                       m->opts.observe ? "observe (observe mode compares\nwith the kernel's "
                                       "cpufreq choices)" : "govern");
        if (r < 0)
                return log_error_errno(r, "Failed to read the cpufreq topology: %m");
        manager_warn_missing_policies(m, &m->config);

        m->gov.managed = calloc(MAX(m->gov.topology->n_policies, (size_t) 1), sizeof(bool));
        m->gov.health = calloc(MAX(m->gov.topology->n_policies, (size_t) 1), sizeof(PolicyHealth));
        if (!m->gov.managed || !m->gov.health)
                return log_oom();
        for (size_t i = 0; i < m->gov.topology->n_policies; i++) {
                m->gov.managed[i] = config_manages_policy(&m->config, m->gov.topology->policies[i].id);
                n_managed += m->gov.managed[i];
        }
        if (n_managed == 0)
                return log_error_errno(SYNTHETIC_ERRNO(ENOENT), "%s: [governor] policies= selects none of this "
                                       "machine's policies.", m->opts.config_path);
        return 0;
}

/* "policyN: rate limit ..." at info level, once per policy taken over: the limit and where it came from. */
static void manager_log_rate_limit(const PolicyDesc *p, const Config *cfg) {
        RateLimit rl = governor_rate_limit(p, cfg);
        char buf[256];

        governor_rate_limit_format(&rl, p, buf, sizeof(buf));
        log_info("policy%u: %s.", p->id, buf);
}

static int manager_take_over(Manager *m) {
        _cleanup_free_ char *error = NULL;
        int r;

        r = actuator_take_over(m->gov.topology, m->gov.managed, m->opts.state_path, &m->gov.actuator, &error);
        if (r < 0)
                return log_error_errno(r, "Cannot take over the cpufreq policies: %s: %m", error ? error : "failed");

        for (size_t i = 0; i < m->gov.topology->n_policies; i++)
                if (m->gov.managed[i]) {
                        log_info("policy%u: taken over from governor '%s' (%s).", m->gov.topology->policies[i].id,
                                 m->gov.topology->policies[i].governor, m->gov.topology->policies[i].driver);
                        manager_log_rate_limit(&m->gov.topology->policies[i], &m->config);
                }
        return 0;
}

/*
 * Observe mode instead of the take-over: nothing on the machine changes (no governor, no limit, no file in /run),
 * and the bus name stays the governing daemon's. Says what it compares with.
 */
static int manager_observe_start(Manager *m) {
        _cleanup_free_ uint32_t *ours_khz = calloc(MAX(m->gov.topology->n_policies, (size_t) 1), sizeof(uint32_t));
        EventSourceStats ss;
        bool kernel;
        int r;

        if (!ours_khz)
                return log_oom();
        event_source_stats(m->gov.source, &ss);
        kernel = ss.cpu_frequency;
        for (size_t i = 0; i < m->gov.topology->n_policies; i++)
                ours_khz[i] = engine_policy_khz(m->gov.engine, (unsigned) i); /* where the engine starts */
        r = observer_new(m->gov.topology, ours_khz, monotonic_ns(), stdout, &m->observer);
        if (r < 0)
                return log_oom();
        for (size_t i = 0; i < m->gov.topology->n_policies; i++) {
                const PolicyDesc *p = &m->gov.topology->policies[i];

                if (m->gov.managed[i])
                        log_info("policy%u: observed, left to governor '%s' (%s).", p->id,
                                 p->governor[0] ? p->governor : "?", p->driver[0] ? p->driver : "?");
        }
        if (!kernel)
                log_notice("No power:cpu_frequency tracepoint (a kernel without CONFIG_CPU_FREQ): schedfreqd's "
                           "choices are shown alone.");
        else
                log_info("Comparing with the kernel's choices (power:cpu_frequency).\n"
                         "A governor that sets no frequency itself, or a driver choosing in hardware, fires none: "
                         "kernel=- then.");
        log_info("Observe mode: changing nothing (no take-over, no writes, no D-Bus name). One line per change on "
                 "stdout:\nt=<ns> policy=<id> ours=<kHz> kernel=<kHz|-> agree=<%%|-> changed=<ours|kernel>");
        return 0;
}

/*
 * The iowait boost needs to know that a waking task had been waiting for I/O (p->in_iowait). Userspace sees
 * that only through sched:sched_stat_iowait, which exists with CONFIG_SCHEDSTATS and fires only while
 * kernel.sched_schedstats=1 (__update_stats_enqueue_sleeper() in kernel/sched/stats.c). Turning schedstats on
 * costs every enqueue, which is the administrator's call, not ours: we say what we found, once.
 */
static void manager_log_iowait(Manager *m) {
        _cleanup_fclose_ FILE *f = NULL;
        EventSourceStats ss;
        int enabled = -1;

        if (event_source_decides(m->gov.source)) {
                log_info("iowait boost from the waking task's in_iowait, read in the kernel.");
                return;
        }
        event_source_stats(m->gov.source, &ss);
        if (!ss.iowait) {
                log_info("No sched:sched_stat_iowait tracepoint (kernel without CONFIG_SCHEDSTATS): no iowait boost.");
                return;
        }
        f = fopen("/proc/sys/kernel/sched_schedstats", "re");
        if (!f || fscanf(f, "%d", &enabled) != 1)
                enabled = -1;
        if (enabled == 0)
                log_notice("kernel.sched_schedstats=0: sched:sched_stat_iowait does not fire, so no iowait boost.\n"
                           "sysctl kernel.sched_schedstats=1 turns it on.");
        else
                log_info("iowait boost from sched:sched_stat_iowait.");
}

const char *manager_source_name(const Manager *m) {
        return m->gov.source ? event_source_type_to_string(event_source_type(m->gov.source)) : "none";
}

/* The event source: --events= or [events] source; auto says in the log which one it took and why. */
static int manager_start_source(Manager *m) {
        EventSourceType type = m->opts.events_source >= 0 ? (EventSourceType) m->opts.events_source :
                                                              m->config.event_source;
        _cleanup_free_ char *why = NULL;
        int r;

        r = event_source_new(m->event, &(const EventSourceOptions) {
                .type = type,
                .observe = m->opts.observe,
                .topology = m->gov.topology,
                .config = &m->config,
                .engine = m->gov.engine,
                .handlers = {
                        .event = on_sched_event,
                        .lost = on_events_lost,
                        .decision = on_source_decision,
                        .userdata = m,
                },
        }, &m->gov.source, &why);
        if (r == -EBADMSG) {
                _cleanup_free_ char *error = NULL;

                (void) event_source_format_error(&error);
                return log_error_errno(r, "The kernel's scheduler tracepoints are not laid out as schedfreqd reads "
                                       "them, refusing to guess: %s", error ?: "(no details)");
        }
        if (r == -EACCES || r == -EPERM)
                return log_error_errno(r, "Cannot open the scheduler %s (%m): that takes %s on every CPU; run "
                                       "schedfreqd as root (sudo schedfreqd) or as the schedfreqd service.",
                                       type == EVENT_SOURCE_BPF ? "BPF programs" : "tracepoints",
                                       type == EVENT_SOURCE_BPF ? "CAP_BPF and CAP_PERFMON" :
                                                                  manager_perf_capability());
        if (r < 0 && type == EVENT_SOURCE_BPF)
                return log_error_errno(r, "The BPF event source cannot run here (%s); [events] source = perf "
                                       "(or auto) reads the scheduler tracepoints through perf instead.",
                                       why ?: strerror(-r));
        if (r < 0)
                return log_error_errno(r, "Failed to open the scheduler tracepoints: %m");

        if (type == EVENT_SOURCE_AUTO)
                log_info("Event source: %s (auto: %s).", manager_source_name(m), why ?: "chosen");
        else
                log_info("Event source: %s (%s).", manager_source_name(m),
                         m->opts.events_source >= 0 ? "--events" : "[events] source");
        return 0;
}

/* A task appeared or changed its name: its rule (manager-rules.c); after lost events, every task again. */
static int on_proc_event(const ProcEvent *ev, const TaskName *task, void *userdata) {
        Manager *m = userdata;
        int r;

        switch (ev->type) {
        case PROC_EVENT_TYPE_FORK:
        case PROC_EVENT_TYPE_EXEC:
        case PROC_EVENT_TYPE_COMM:
                return task ? manager_rules_task(&m->gov, m->task_names, task->pid, task->tgid, task->comm) : 0;
        case PROC_EVENT_TYPE_EXIT:
                /* Only a pinned task can outlive its sched_process_exit (pinned by a late exec message), and a
                 * running one until its last switch-out (demand-events.c): removed here at the latest. */
                if (engine_rules(m->gov.engine)) {
                        engine_task_exit(m->gov.engine, ev->pid);
                        if (m->gov.source)
                                (void) event_source_task_rule(m->gov.source, ev->pid, -1);
                }
                return 0;
        case PROC_EVENT_TYPE_SID:
                /* subscribed only where the model groups tasks by session (manager_start_proc_conn()) */
                return manager_sessions_setsid(&m->gov, ev, NULL);
        case PROC_EVENT_TYPE_RESCAN:
                /* a setsid may have been lost with the rest: the sessions again too */
                r = manager_sessions_scan(&m->gov, NULL);
                if (r == -ENOMEM)
                        return r;
                return manager_rules_scan(&m->gov, m->task_names);
        default:
                return 0;
        }
}

/*
 * With a source that decides in the kernel and no per-process rules, nothing needs the proc connector's stream of
 * every fork, exec and exit on the machine (a wake-up each: 1.9 % of the context switches under perf bench sched
 * messaging, docs/benchmarks.md): a decision's task is named from /proc when it is recorded. A reload that adds
 * rules subscribes.
 */
static bool manager_needs_proc_conn(const Manager *m, const Config *c) {
        return !m->gov.source || !event_source_decides(m->gov.source) || c->rules.n > 0;
}

/*
 * The model's task groups need every task's session (manager-sessions.c): read from /proc once the proc connector,
 * which reports the setsid() calls from then on, is subscribed (or known to be unavailable).
 */
static int manager_start_sessions(Manager *m) {
        int r;

        if (!manager_sessions_wanted(&m->gov))
                return 0;
        r = manager_sessions_scan(&m->gov, NULL);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0)
                log_warning_errno(r, "Failed to read the tasks' sessions, grouping by what the events show: %m");
        else
                log_info("Task groups: by session (autogroup), %d tasks' sessions read, %s.", r,
                         m->proc ? "setsid() followed" : "setsid() not followed (no proc connector)");
        return 0;
}

/* Task names and lifecycle; optional: where the connector is unavailable we run on tracepoints alone. */
static int manager_start_proc_conn(Manager *m, const Config *c) {
        const char *why;
        int r;

        if (!m->task_names) {
                r = task_names_new(NULL, 0, &m->task_names);
                if (r < 0)
                        return log_oom();
        }
        m->proc_unused = !manager_needs_proc_conn(m, c);
        if (m->proc_unused) {
                log_info("Proc connector not subscribed: the %s source has no per-process rules to match; a "
                         "decision's task is named from /proc.", manager_source_name(m));
                return 0;
        }

        r = proc_conn_new_full(m->event, m->task_names,
                               &(const ProcConnOptions) { .handler = on_proc_event, .userdata = m,
                                                          .sessions = manager_sessions_wanted(&m->gov) },
                               &m->proc);
        if (r == -ENOMEM)
                return log_oom();
        if (r >= 0) {
                if (manager_rules_scan(&m->gov, m->task_names) == -ENOMEM)
                        return log_oom();
                return manager_start_sessions(m);
        }

        why = proc_conn_unavailable_reason(r);
        if (why)
                log_notice("Proc connector unavailable (%s), running on tracepoints alone.", why);
        else
                log_warning_errno(r, "Proc connector unavailable (%m), running on tracepoints alone.");
        return manager_start_sessions(m);
}

int manager_start(Manager *m) {
        int r;

        r = sd_event_default(&m->event);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate the event loop: %m");

        r = manager_add_signals(m);
        if (r < 0)
                return log_error_errno(r, "Failed to set up signal handling: %m");

        manager_apply_realtime(m->config.realtime_priority);

        /* Pings the watchdog from the loop when WATCHDOG_USEC is set; a no-op otherwise. */
        (void) sd_event_set_watchdog(m->event, true);

        r = engine_new(m->gov.topology, &m->config, on_decision, m, &m->gov.engine);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the governor: %m");
        engine_set_self(m->gov.engine, m->self_pid);

        r = sd_event_add_time(m->event, &m->tick_source, CLOCK_MONOTONIC, UINT64_MAX,
                              tick_accuracy_usec(&m->config), on_tick, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the tick timer: %m");
        (void) sd_event_source_set_enabled(m->tick_source, SD_EVENT_OFF);
        (void) sd_event_source_set_description(m->tick_source, "tick");

        r = sd_event_add_post(m->event, &m->post_source, on_post, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the post source: %m");
        (void) sd_event_source_set_description(m->post_source, "post");

        r = manager_start_source(m);
        if (r < 0)
                return r;

        manager_log_iowait(m);

        r = manager_start_proc_conn(m, &m->config);
        if (r < 0)
                return r;

        r = manager_hotplug_start(&m->hotplug, m->event, &m->gov);
        if (r < 0)
                return r;

        if (m->opts.observe) {
                r = manager_observe_start(m);
                if (r < 0)
                        return r;
        } else {
                /* Last: only now do we change anything on the machine. */
                crash_point("start-up");
                r = manager_take_over(m);
                if (r < 0)
                        return r;
                crash_point("take-over:done");
        }

        /* Uptime counts from here. */
        m->start_usec = monotonic_usec();
        return 0;
}

/*
 * One daemon at a time, decided before anything is read or opened: the instance lock, held until exit. A second
 * instance with other state and lock files is stopped by the policy locks at take-over (actuator.c).
 */
static int manager_lock(Manager *m) {
        _cleanup_free_ char *error = NULL;
        const char *path = ASSERT_PTR(m->opts.lock_path);
        pid_t pid = 0;
        int r;

        r = actuator_lock_take(path, &m->lock_fd, &pid, &error);
        if (r == -EBUSY)
                return log_error_errno(r, "Another schedfreqd is running (PID %d, holding %s): it governs the cpufreq "
                                       "policies, and a policy has one governor. Stop it first (systemctl stop "
                                       "schedfreqd, or kill -TERM %d); do not run `schedfreqd restore` under it.",
                                       (int) pid, path, (int) pid);
        if (r < 0)
                return log_error_errno(r, "Cannot take the instance lock (%s): %m", error ? error : path);
        if (pid > 0)
                log_debug("%s named PID %d, which no longer holds it.", path, (int) pid);
        return 0;
}

int manager_new(const ManagerOptions *opts, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        m = calloc(1, sizeof(Manager));
        if (!m)
                return log_oom();
        m->opts = *opts;
        m->gov.observe = opts->observe;
        m->lock_fd = -EBADF;
        m->self_pid = getpid();
        r = decision_log_init(&m->decisions, DECISION_LOG_SIZE);
        if (r < 0)
                return log_oom();

        /*
         * A closed reader of stdout or stderr (`--print-decisions | head -1`, a log pipe gone) must not kill the
         * daemon: SIGPIPE's default action would leave every policy on userspace and the state file behind.
         * Ignored, a write gives EPIPE instead (manager_print_decision(); log lines are then lost, nothing else).
         * First of all: any log line may be the one that meets the closed pipe.
         */
        if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
                return log_error_errno(errno, "Failed to ignore SIGPIPE: %m");

        r = manager_check_privileges(m->opts.observe);
        if (r < 0)
                return r;

        /* An observer governs nothing: it runs beside a governing daemon, or another observer. */
        r = m->opts.observe ? 0 : manager_lock(m);
        if (r < 0)
                return r;

        r = manager_load(m);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(m);
        return 0;
}

int manager_run(Manager *m) {
        int r, restore_r;

        manager_notify_status(&m->gov, "READY=1\n");
        log_info("schedfreqd %s running.", VERSION_STRING);

        r = sd_event_loop(m->event);
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");

        if (m->opts.observe) {
                (void) sd_notify(0, "STOPPING=1");
                manager_log_stats(&m->gov, m->commits, &m->latency, m->proc, m->task_names);
                observer_finish(m->observer, monotonic_ns());
                log_info("Observe mode: nothing to restore.");
                return r;
        }

        (void) sd_notify(0, "STOPPING=1\nSTATUS=Restoring cpufreq policies");
        manager_log_stats(&m->gov, m->commits, &m->latency, m->proc, m->task_names);

        restore_r = actuator_restore(m->gov.actuator);
        if (restore_r < 0)
                log_error_errno(restore_r, "Failed to restore every cpufreq policy (state kept in %s for "
                                           "'schedfreqd restore'): %m", m->opts.state_path);
        else
                log_info("cpufreq policies restored.");

        return r < 0 ? r : restore_r;
}
