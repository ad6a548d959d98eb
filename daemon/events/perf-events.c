/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-events.c: the per-CPU sched tracepoint fds, their rings and sd-event sources, the wakeup policy, and
 * the drain that merges the rings by time. Layouts come from tp-format.c, records are read by perf-ring.c and
 * decoded by tp-decode.c; what the events mean is the engine's business. Measured costs and rates behind
 * the choices here: shared/notes/platform.md, "perf tracepoints", and bench/bench-events.c.
 *
 * Wake-up policy (issue #9: a quiet machine must wake the daemon at most a few times a second). Each CPU is
 * in one of three states, the same on every CPU:
 *
 *   WATERMARK  the watermark twins of sched_wakeup* (no wakeup_events) are enabled; nothing wakes the daemon
 *              but the ring watermark, so the drain timer (drain_interval) runs. The only state with a timer.
 *   IMMEDIATE  the immediate twins (wakeup_events=1) are enabled: every sched_wakeup* sample wakes the
 *              daemon. Nothing periodic runs: drains come from those wake-ups, the watermark, and the
 *              manager's own tick while a CPU is busy (it calls perf_events_drain()).
 *   LAZY       IMMEDIATE with a quiet set (perf_events_set_quiet()): a third pair of sched_wakeup* fds, the
 *              "lazy twins", splits the wake-ups by pid: the quiet pids' go to a watermark twin (recorded,
 *              no wake-up), everyone else's to an immediate twin. Every wake-up is recorded exactly once.
 *
 * The busy detector (sched_stat_runtime, wakeup_events=1, runtime >= 1 ms, or half a tick when the tick is
 * shorter than 2 ms: detector_runtime_ns(), from the tick at start-up) is enabled in every state: a task
 * that has run 1 ms without a break (in LAZY, a hog a quiet task started) wakes the daemon at the CPU's next
 * tick, and its samples keep the model from ending a running task's run (role_enabled_in()).
 *
 * A tracepoint fd takes exactly one filter in its life (ftrace_profile_set_filter() returns EEXIST once
 * event->filter is set, checked on 6.18), so the lazy twins are opened anew for every quiet set and closed
 * when it changes or lazy mode ends. The adaptive rate is measured at drains, whatever triggers them; when
 * it crosses the threshold the state goes to WATERMARK (timer armed), and back to IMMEDIATE or LAZY below a
 * quarter of it (the quiet set is kept meanwhile and re-applied then).
 *
 * Switch windows: a switch enables the fds of the new state first, then disables the old ones, CPU by CPU.
 * A wake-up raised between the two ioctls (tens of µs on this VM) is recorded by both: never lost. The two
 * samples of one tracepoint hit are adjacent records of the CPU's ring with the same payload: perf_tp_event()
 * writes one per matching event, and try_to_wake_up() / wake_up_new_task() trace with interrupts off
 * (p->pi_lock, irqsave), so nothing else is recorded on that CPU in between. Their times may differ by tens
 * of µs here (a self-IPI per immediate sample is a VM exit). The drain drops the second of two adjacent,
 * identical wake-ups that fall in the CPU's switch window (stats.duplicates; measured by test-perf-events-lazy:
 * ~500 dropped over ~800 back-to-back switches while a task was woken 1000 times, none lost or left twice;
 * without the drop all ~500 are delivered twice). What it could drop wrongly: two real wake-ups of a task
 * that runs on another CPU, woken twice from this one with nothing else recorded here in between, inside a
 * switch window; a wake-up of a running task changes nothing for the model.
 */

#include <assert.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "events.h"
#include "log.h"
#include "perf-events-internal.h"
#include "perf-ring.h"
#include "time-util.h"
#include "tp-decode.h"
#include "tp-format.h"

/*
 * In STATE_LAZY a CPU not in lazy_cpus keeps its immediate twins: a quiet task's wake-up recorded there may
 * change a frequency (its policy is above the floor). The detector runs on every CPU in every state: in
 * STATE_LAZY a quiet task woken lazily elsewhere may run long here, and in all of them it is the evidence that
 * a task still runs, without which the model takes a CPU's silence for a lost switch-out and ends the run of
 * a hog after 3 ticks (demand_cpu_silent(); perf_events_reports_runtime()). A hog costs one sample per tick.
 */
/*
 * The detector's threshold for a tick of @tick_ns: 1 ms, or half a tick when that is shorter. A hog's report at
 * each tick says how long it ran since the last (about a tick: less the IRQ time, update_rq_clock_task()), so
 * on a CONFIG_HZ=1000 kernel a 1 ms threshold would drop most of them and the silence of 3 ticks would end its
 * run; half a tick keeps them and still drops the short runs between two switches.
 */
static uint64_t detector_runtime_ns(uint64_t tick_ns) {
        return MIN((uint64_t) DETECTOR_RUNTIME_NS, MAX(tick_ns / 2, (uint64_t) 1));
}

static bool role_enabled_in(PerfFdRole role, PerfState s, bool lazy_ok) {
        switch (role) {
        case ROLE_ALWAYS:
                return true;
        case ROLE_WATERMARK:
                return s == STATE_WATERMARK;
        case ROLE_IMMEDIATE:
                return s == STATE_IMMEDIATE || (s == STATE_LAZY && !lazy_ok);
        case ROLE_DETECTOR:
                return true;
        case ROLE_LAZY_IMMEDIATE:
        case ROLE_LAZY_WATERMARK:
                return s == STATE_LAZY && lazy_ok;
        }
        return false;
}

bool perf_events_reports_runtime(const PerfEvents *p) {
        return p && (p->detector || (p->flags & PERF_EVENTS_STAT_RUNTIME));
}

static int config_check(const Config *cfg) {
        if (cfg->ring_pages == 0 || (cfg->ring_pages & (cfg->ring_pages - 1)) != 0 ||
            cfg->drain_interval_usec == 0 || cfg->wakeup < 0 || cfg->wakeup >= _WAKEUP_MODE_MAX)
                return -EINVAL;
        return 0;
}

static int perf_fd_set_enabled(PerfFd *f, bool enable) {
        if (f->enabled == enable)
                return 0;
        if (ioctl(f->fd, enable ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
                return -errno;
        f->enabled = enable;
        return 0;
}

/*
 * Puts one CPU in state @to: first enables what @to needs, then disables the rest (the stale lazy twins
 * included), so a wake-up raised in between is recorded twice, never missed; the drain drops the second
 * copy (see "Switch windows" above). The window is remembered for that; one not yet drained is extended.
 */
int perf_cpu_switch(PerfCpu *c, PerfState to) {
        PerfFd *sets[] = { c->fds, c->lazy, c->stale };
        const size_t counts[] = { c->n_fds, c->n_lazy, c->n_stale };
        uint64_t from = monotonic_ns();
        bool changed = false;
        int r = 0;

        c->lazy_ok = CPU_ISSET(c->cpu, &c->owner->lazy_cpus);
        for (unsigned pass = 0; pass < 2 && r >= 0; pass++)
                for (unsigned s = 0; s < ELEMENTSOF(sets) && r >= 0; s++)
                        for (size_t k = 0; k < counts[s] && r >= 0; k++) {
                                PerfFd *f = &sets[s][k];
                                bool enable = sets[s] != c->stale && role_enabled_in(f->role, to, c->lazy_ok);

                                if (enable != (pass == 0) || f->enabled == enable)
                                        continue;
                                r = perf_fd_set_enabled(f, enable);
                                changed = true;
                        }
        if (!changed)
                return r;
        if (c->switch_until_ns == 0 || c->switch_until_ns < c->collected_ns)
                c->switch_from_ns = from;
        c->switch_until_ns = monotonic_ns();
        return r;
}

/* Enables a new generation of CPUs (nothing enabled yet) in state @to. */
static int perf_cpus_enable(PerfCpu *cpus, size_t n, PerfState to) {
        int r;

        for (size_t i = 0; i < n; i++) {
                r = perf_cpu_switch(&cpus[i], to);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void perf_events_forget_quiet(PerfEvents *p) {
        p->n_quiet = 0;
        p->stats.quiet_pids = 0;
}

/*
 * Opens the lazy twins of the quiet set on every CPU of a generation. On failure none stay open, the quiet
 * set is forgotten (the caller falls back to STATE_IMMEDIATE) and a refused filter is counted.
 */
static int perf_cpus_open_lazy(PerfEvents *p, unsigned ring_pages, PerfCpu *cpus, size_t n) {
        bool filter_error = false;
        int r = 0;

        for (size_t i = 0; i < n && r >= 0; i++)
                if (cpus[i].n_lazy == 0)
                        r = perf_cpu_open_lazy(p, ring_pages, &cpus[i], &filter_error);
        if (r >= 0)
                return 0;
        for (size_t i = 0; i < n; i++) /* all disabled: opened just now */
                perf_fds_close(cpus[i].lazy, &cpus[i].n_lazy);
        p->stats.filter_errors += filter_error;
        perf_events_forget_quiet(p);
        log_debug_errno(r, "Cannot open the lazy wake-up events, staying in immediate mode: %m");
        return r;
}

static int perf_events_update_timer(PerfEvents *p) {
        int enabled = SD_EVENT_OFF, r;

        if (!p->timer)
                return 0;
        if (p->state != STATE_WATERMARK)
                return sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
        (void) sd_event_source_get_enabled(p->timer, &enabled);
        if (enabled != SD_EVENT_OFF)
                return 0;
        r = sd_event_source_set_time_relative(p->timer, p->drain_interval_usec);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(p->timer, SD_EVENT_ON);
}

/* Some CPU whose quiet wake-ups may be lazy (lazy_cpus) is open. */
static bool any_lazy_cpu(const PerfEvents *p) {
        for (size_t i = 0; i < p->n_cpus; i++)
                if (CPU_ISSET(p->cpus[i].cpu, &p->lazy_cpus))
                        return true;
        return false;
}

/*
 * Applies the wake-up state for @immediate: WATERMARK, or IMMEDIATE, or LAZY when there is a quiet set
 * (opening its lazy twins if needed). Returns a negative errno if an ioctl failed (the state may then be
 * mixed). A quiet set that cannot be applied (a refused filter, no fds left) makes it IMMEDIATE instead: that
 * error is returned in *ret_lazy_error, not as the result.
 */
static int perf_events_apply(PerfEvents *p, bool immediate, int *ret_lazy_error) {
        PerfState to = !immediate ? STATE_WATERMARK :
                       p->n_quiet > 0 && any_lazy_cpu(p) ? STATE_LAZY : STATE_IMMEDIATE;
        bool was_lazy = p->stats.lazy, changed = false;
        int r;

        *ret_lazy_error = 0;
        if (to == STATE_LAZY && !p->lazy_open) {
                r = perf_cpus_open_lazy(p, p->ring_pages, p->cpus, p->n_cpus);
                if (r < 0) {
                        *ret_lazy_error = r;
                        to = STATE_IMMEDIATE;
                } else
                        p->lazy_open = true;
        }
        for (size_t i = 0; i < p->n_cpus; i++) {
                PerfCpu *c = &p->cpus[i];

                if (to == p->state && c->n_stale == 0 &&
                    (to != STATE_LAZY || c->lazy_ok == CPU_ISSET(c->cpu, &p->lazy_cpus)))
                        continue;
                changed = true;
                r = perf_cpu_switch(c, to);
                if (r < 0)
                        return r;
                perf_fds_close(c->stale, &c->n_stale);
        }
        if (p->state != to && (to == STATE_WATERMARK || p->state == STATE_WATERMARK))
                p->stats.mode_switches++;
        p->state = to;
        p->stats.immediate = to != STATE_WATERMARK;
        p->stats.lazy = to == STATE_LAZY;
        if (changed && (was_lazy || p->stats.lazy))
                p->stats.lazy_switches++;
        return perf_events_update_timer(p);
}

/* Measures the event rate over RATE_WINDOW_NS windows (or longer: it is measured at drains, whatever
 * triggers them); adaptive mode switches with a 4:1 hysteresis. */
static int perf_events_rate_update(PerfEvents *p, size_t n_events) {
        uint64_t now = monotonic_ns(), dt = now - p->window_start_ns;
        int lazy_error;

        p->window_events += n_events;
        if (dt < RATE_WINDOW_NS)
                return 0;
        p->stats.rate_per_sec = p->window_events * UINT64_C(1000000000) / dt;
        p->window_start_ns = now;
        p->window_events = 0;

        if (p->stats.mode != WAKEUP_MODE_ADAPTIVE)
                return 0;
        if (p->stats.immediate && p->stats.rate_per_sec > p->adaptive_high_per_sec)
                return perf_events_apply(p, false, &lazy_error);
        if (!p->stats.immediate && p->stats.rate_per_sec < p->adaptive_high_per_sec / 4)
                return perf_events_apply(p, true, &lazy_error); /* a lazy failure: counted, immediate */
        return 0;
}

int perf_events_drain(PerfEvents *p) {
        int r;

        p->stats.drains++;
        r = perf_rings_collect(p);
        perf_events_refresh_stats(p);
        if (r >= 0)
                r = perf_events_rate_update(p, p->n_batch);
        if (r < 0)
                return r;
        return perf_rings_deliver(p);
}

static int perf_on_ring_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        PerfCpu *c = ASSERT_PTR(userdata);

        /*
         * The event is gone (or broken): stop watching it, or the loop would spin; its ring is still read by
         * every drain (the timer's in watermark mode, the other rings' wake-ups, the manager's tick).
         */
        if (revents & (EPOLLHUP | EPOLLERR))
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        c->owner->stats.wakeups++;
        return perf_events_drain(c->owner);
}

int perf_cpu_add_io(PerfEvents *p, PerfCpu *c) {
        char description[32];
        int r;

        r = sd_event_add_io(p->event, &c->io, c->fds[0].fd, EPOLLIN, perf_on_ring_readable, c);
        if (r < 0)
                return r;
        snprintf(description, sizeof(description), "perf-ring-cpu%d", c->cpu);
        (void) sd_event_source_set_description(c->io, description);
        (void) sd_event_source_set_exit_on_failure(c->io, true);
        return 0;
}

/* A CPU the kernel does not have (an emulated sysfs may list more than the real machine): skip it. */
static bool cpu_missing_error(int r) {
        return r == -ENODEV || r == -EINVAL || r == -ENXIO;
}

/* Opens every requested CPU (one generation of fds and rings), all events still disabled. */
static int perf_cpus_open(PerfEvents *p, unsigned ring_pages, PerfCpu **ret, size_t *ret_n,
                          unsigned *ret_skipped) {
        size_t n = 0, want = (size_t) CPU_COUNT(&p->requested);
        PerfCpu *cpus;
        unsigned skipped = 0;
        int r, first_error = 0;

        cpus = calloc(MAX(want, (size_t) 1), sizeof(PerfCpu));
        if (!cpus)
                return -ENOMEM;
        for (int cpu = 0; cpu < CPU_SETSIZE && n + skipped < want; cpu++) {
                if (!CPU_ISSET(cpu, &p->requested) || CPU_ISSET(cpu, &p->offline))
                        continue;
                r = perf_cpu_open(p, ring_pages, cpu, &cpus[n]);
                if (r >= 0)
                        r = perf_cpu_add_io(p, &cpus[n]);
                if (r >= 0) {
                        n++;
                        continue;
                }
                perf_cpu_close(&cpus[n]);
                if (!cpu_missing_error(r))
                        goto fail;
                log_debug_errno(r, "perf refused CPU %d, skipping it: %m", cpu);
                first_error = first_error ?: r;
                skipped++;
        }
        r = n > 0 ? 0 : (first_error ?: -ENODEV);
        if (r < 0)
                goto fail;
        *ret = cpus;
        *ret_n = n;
        *ret_skipped = skipped;
        return 0;
fail:
        perf_cpus_free(cpus, n);
        return r;
}

static int on_drain_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        PerfEvents *p = ASSERT_PTR(userdata);
        int r;

        /* Re-armed first: a drain that goes back to immediate turns the timer off. */
        r = sd_event_source_set_time_relative(s, p->drain_interval_usec);
        if (r < 0)
                return r;
        return perf_events_drain(p);
}

/* The drain timer, created off: perf_events_update_timer() turns it on in STATE_WATERMARK only. */
static int perf_events_add_timer(PerfEvents *p) {
        int r;

        /* Accuracy 1/16 of the interval: timely, yet lets sd-event coalesce wake-ups. */
        r = sd_event_add_time_relative(p->event, &p->timer, CLOCK_MONOTONIC, p->drain_interval_usec,
                                       MAX(p->drain_interval_usec / 16, (uint64_t) 1), on_drain_timer, p);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(p->timer, "perf-drain");
        (void) sd_event_source_set_exit_on_failure(p->timer, true);
        return sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
}

/* tracefs, mounted by libtracefs if it is not (tracefs_tracing_dir() mounts it at /sys/kernel/tracing). */
static int load_format(TpFormat *ret, char **ret_error) {
        _cleanup_free_ char *events_dir = NULL;
        const char *tracing;

        tracing = tracefs_tracing_dir();
        if (!tracing)
                return errno > 0 ? -errno : -ENOENT;
        if (asprintf(&events_dir, "%s/events", tracing) < 0)
                return -ENOMEM;
        return tp_format_load(events_dir, ret, ret_error);
}

static int perf_events_load_format(PerfEvents *p) {
        _cleanup_free_ char *error = NULL;
        int r;

        r = load_format(&p->format, &error);
        if (r < 0)
                log_debug_errno(r, "Cannot read the sched tracepoint formats: %s", error ?: strerror(-r));
        return r;
}

int perf_events_format_error(char **ret) {
        _cleanup_free_ char *error = NULL;
        TpFormat format = {};
        int r;

        r = load_format(&format, &error);
        if (r >= 0)
                return 0;
        *ret = TAKE_PTR(error);
        return r;
}

int perf_events_new_flags(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsFlags flags,
                          PerfEventsHandler handler, void *userdata, PerfEvents **ret) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        unsigned skipped;
        int r;

        if (!event || !cpus || !cfg || !handler || !ret || config_check(cfg) < 0)
                return -EINVAL;
        p = calloc(1, sizeof(PerfEvents));
        if (!p)
                return -ENOMEM;
        p->event = sd_event_ref(event);
        p->requested = *cpus;
        p->lazy_cpus = *cpus;
        p->flags = flags;
        p->handler = handler;
        p->userdata = userdata;
        p->self = getpid();
        p->ring_pages = cfg->ring_pages;
        p->drain_interval_usec = cfg->drain_interval_usec;
        p->adaptive_high_per_sec = cfg->adaptive_high_per_sec;
        p->detector_runtime_ns = detector_runtime_ns(config_tick_ns(cfg));
        p->stats.mode = cfg->wakeup;
        p->state = STATE_WATERMARK; /* nothing enabled yet; the state is entered below */
        p->window_start_ns = monotonic_ns();

        p->heap = calloc(MAX((size_t) CPU_COUNT(cpus), (size_t) 1), sizeof(PerfCpu *));
        if (!p->heap)
                return -ENOMEM;
        r = perf_events_load_format(p);
        if (r < 0)
                return r;
        p->stats.iowait = p->format.events[SCHED_EVENT_STAT_IOWAIT].present;
        p->stats.cpu_frequency = (flags & PERF_EVENTS_CPU_FREQUENCY) &&
                                 p->format.events[SCHED_EVENT_CPU_FREQUENCY].present;
        p->detector = !(flags & PERF_EVENTS_STAT_RUNTIME);
        r = perf_cpus_open(p, p->ring_pages, &p->cpus, &p->n_cpus, &skipped);
        if (r < 0)
                return r;
        p->stats.cpus = (unsigned) p->n_cpus;
        p->stats.cpus_skipped = skipped;

        r = perf_events_add_timer(p);
        if (r < 0)
                return r;
        p->state = cfg->wakeup != WAKEUP_MODE_WATERMARK ? STATE_IMMEDIATE : STATE_WATERMARK;
        p->stats.immediate = p->state != STATE_WATERMARK;
        r = perf_cpus_enable(p->cpus, p->n_cpus, p->state);
        if (r < 0)
                return r;
        r = perf_events_update_timer(p);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

int perf_events_new(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsHandler handler,
                    void *userdata, PerfEvents **ret) {
        return perf_events_new_flags(event, cpus, cfg, 0, handler, userdata, ret);
}

static int pid_compare(const void *a, const void *b) {
        int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;

        return x < y ? -1 : x > y;
}

int perf_events_set_quiet(PerfEvents *p, const int32_t *pids, size_t n_pids) {
        int32_t set[PERF_EVENTS_QUIET_MAX];
        size_t n = 0;
        int r, lazy_error;

        if (!p || (n_pids > 0 && !pids))
                return -EINVAL;
        for (size_t i = 0; i < n_pids; i++)
                if (pids[i] <= 0)
                        return -EINVAL;
        /* The first PERF_EVENTS_QUIET_MAX distinct pids; our own is filtered out everywhere already. */
        for (size_t i = 0; i < n_pids && n < PERF_EVENTS_QUIET_MAX; i++) {
                bool dup = pids[i] == (int32_t) p->self;

                for (size_t k = 0; k < n && !dup; k++)
                        dup = set[k] == pids[i];
                if (!dup)
                        set[n++] = pids[i];
        }
        qsort(set, n, sizeof(set[0]), pid_compare);
        if (n == p->n_quiet && memcmp(set, p->quiet, n * sizeof(set[0])) == 0)
                return 0;
        if (n > 0 && !p->detector && !(p->flags & PERF_EVENTS_STAT_RUNTIME))
                return -EOPNOTSUPP; /* no way to see a hog started by a quiet task */

        /* The twins of the old set are filtered on it: retire them (disabled and closed by the switch). */
        for (size_t i = 0; i < p->n_cpus; i++) {
                PerfCpu *c = &p->cpus[i];

                perf_fds_close(c->stale, &c->n_stale); /* left by a switch that failed half-way */
                memcpy(c->stale, c->lazy, sizeof(c->lazy));
                c->n_stale = c->n_lazy;
                c->n_lazy = 0;
        }
        p->lazy_open = false;
        memcpy(p->quiet, set, n * sizeof(set[0]));
        p->n_quiet = n;
        p->stats.quiet_pids = (unsigned) n;
        r = perf_events_apply(p, p->stats.immediate, &lazy_error);
        return r < 0 ? r : lazy_error;
}

int perf_events_set_lazy_cpus(PerfEvents *p, const cpu_set_t *cpus) {
        int lazy_error;

        if (!p || !cpus)
                return -EINVAL;
        if (CPU_EQUAL(cpus, &p->lazy_cpus))
                return 0;
        p->lazy_cpus = *cpus;
        if (!p->stats.immediate || p->n_quiet == 0)
                return 0; /* remembered: applied with the quiet set, or when adaptive goes back to immediate */
        return perf_events_apply(p, true, &lazy_error);
}

/* Replaces every fd and ring with a new generation of @ring_pages; the old one is drained first. */
static int perf_events_reopen(PerfEvents *p, unsigned ring_pages) {
        PerfCpu *cpus = NULL;
        PerfState state = p->state;
        size_t n = 0;
        unsigned skipped;
        int r;

        r = perf_events_drain(p);
        if (r < 0)
                return r;
        r = perf_cpus_open(p, ring_pages, &cpus, &n, &skipped);
        if (r < 0)
                return r;
        if (state == STATE_LAZY && perf_cpus_open_lazy(p, ring_pages, cpus, n) < 0)
                state = STATE_IMMEDIATE; /* the quiet set is forgotten */
        r = perf_cpus_enable(cpus, n, state);
        if (r < 0) {
                perf_cpus_free(cpus, n);
                return r;
        }
        p->retired.lost = p->stats.lost;
        p->retired.overruns = p->stats.overruns;
        p->retired.malformed = p->stats.malformed - p->decode_errors;
        p->retired.other = p->stats.other_records;
        perf_cpus_free(p->cpus, p->n_cpus);
        p->cpus = cpus;
        p->n_cpus = n;
        p->ring_pages = ring_pages;
        p->stats.cpus = (unsigned) n;
        p->stats.cpus_skipped = skipped;
        p->lazy_open = state == STATE_LAZY;
        if (state != p->state)
                p->stats.lazy_switches++;
        p->state = state;
        p->stats.lazy = state == STATE_LAZY;
        return 0;
}

int perf_events_reconfigure(PerfEvents *p, const Config *cfg) {
        int r, lazy_error;

        if (config_check(cfg) < 0)
                return -EINVAL;
        if (cfg->ring_pages != p->ring_pages) {
                r = perf_events_reopen(p, cfg->ring_pages);
                if (r < 0)
                        return r;
        }
        p->drain_interval_usec = cfg->drain_interval_usec;
        p->adaptive_high_per_sec = cfg->adaptive_high_per_sec;
        (void) sd_event_source_set_time_accuracy(p->timer, MAX(p->drain_interval_usec / 16, (uint64_t) 1));
        if (p->state == STATE_WATERMARK) {
                r = sd_event_source_set_time_relative(p->timer, p->drain_interval_usec);
                if (r < 0)
                        return r;
        }
        /* A new mode starts in its own state (adaptive starts immediate); the same mode keeps its state. */
        if (cfg->wakeup != p->stats.mode) {
                r = perf_events_apply(p, cfg->wakeup != WAKEUP_MODE_WATERMARK, &lazy_error);
                if (r < 0)
                        return r;
                p->stats.mode = cfg->wakeup;
        }
        return 0;
}

const PerfEventsStats *perf_events_stats(const PerfEvents *p) {
        return &p->stats;
}

int perf_events_ring_fd(const PerfEvents *p, int cpu) {
        for (size_t i = 0; i < p->n_cpus; i++)
                if (p->cpus[i].cpu == cpu)
                        return p->cpus[i].fds[0].fd;
        return -ENOENT;
}

sd_event_source *perf_events_drain_timer(const PerfEvents *p) {
        return p->timer;
}

void perf_events_test_break_filters(PerfEvents *p, bool b) {
        p->break_filters = b;
}

PerfEvents *perf_events_free(PerfEvents *p) {
        if (!p)
                return NULL;
        perf_cpus_free(p->cpus, p->n_cpus);
        sd_event_source_disable_unref(p->timer);
        sd_event_unref(p->event);
        free(p->heap);
        free(p->batch);
        free(p);
        return NULL;
}
