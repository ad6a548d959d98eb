/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event-source-perf.c: the perf source behind daemon/service/event-source.h: the scheduler tracepoints through perf
 * rings (perf-events.c), decoded events handed to the manager for the model. What only the rings need lives
 * here, not in the manager: lazy wake-ups (the quiet set, chosen from the model's quiet tasks after a wake-up,
 * never on a timer) and telling the model whether running tasks report themselves.
 */

#include <errno.h>
#include <stdlib.h>

#include "event-source-internal.h"
#include "event-source.h"
#include "events.h"
#include "governor.h"
#include "log.h"

/*
 * Lazy wake-ups: see engine_quiet_tasks() and perf_events_set_quiet(). The quiet set is rechosen this often
 * (at a wake-up: no timer); an unchanged set costs a walk of the task table, a changed one new lazy fds.
 */
#define LAZY_REFRESH_USEC (1000 * 1000)
#define LAZY_RESCAN_USEC (1000 * 1000)

typedef struct PerfSource {
        EventSource head;
        PerfEvents *perf;
        bool lazy;                     /* quiet tasks' wake-ups do not wake us (perf_events_set_quiet()) */
        uint64_t lazy_since_usec;      /* when the quiet set was last chosen */
        uint64_t lazy_failed_usec;     /* when perf last refused a quiet set (back off) */
        uint64_t lazy_scan_usec;       /* when a scan last found no quiet task although lazy was possible */
} PerfSource;

static PerfSource *perf_source(EventSource *s) {
        return (PerfSource *) s;
}

static const PerfSource *perf_source_const(const EventSource *s) {
        return (const PerfSource *) s;
}

/* Silence may end a task's run only when running tasks report themselves (demand_cpu_silent()); new fds
 * (a reconfigure, a CPU back online) may have had the busy detector refused. */
static void perf_source_tell_runtime(PerfSource *p) {
        engine_set_runtime_reported(p->head.opts.engine, perf_events_reports_runtime(p->perf));
}

static int perf_source_drain(EventSource *s) {
        return perf_events_drain(perf_source(s)->perf);
}

static void perf_source_update_lazy(PerfSource *p, uint64_t now_usec) {
        Engine *e = p->head.opts.engine;
        int32_t pids[PERF_EVENTS_QUIET_MAX];
        cpu_set_t cpus;
        bool possible;
        size_t n;
        int r;

        /* Which CPUs may be lazy changes with every frequency change: applied at every wake-up (ioctls only). */
        possible = engine_quiet_possible(e, &cpus);
        r = perf_events_set_lazy_cpus(p->perf, &cpus);
        if (r < 0)
                log_debug_errno(r, "Failed to apply the lazy CPUs, ignoring: %m");
        if (!possible)
                return; /* the quiet set is kept (its fds too) for when some CPU can be lazy again */
        if (p->lazy && now_usec - p->lazy_since_usec < LAZY_REFRESH_USEC)
                return;
        if (!p->lazy && p->lazy_failed_usec > 0 && now_usec - p->lazy_failed_usec < LAZY_REFRESH_USEC)
                return;
        /* The scan walks the whole task table: when it found nothing to quieten, not again within a second. */
        if (!p->lazy && p->lazy_scan_usec > 0 && now_usec - p->lazy_scan_usec < LAZY_RESCAN_USEC)
                return;
        n = engine_quiet_tasks(e, pids, ELEMENTSOF(pids));
        if (n == 0 && !p->lazy) {
                p->lazy_scan_usec = now_usec;
                return;
        }
        p->lazy_scan_usec = 0;
        r = perf_events_set_quiet(p->perf, pids, n);
        if (r < 0) {
                /* perf-events.c is back in plain immediate mode; try again only after LAZY_REFRESH_USEC. */
                log_debug_errno(r, "Failed to %s lazy wake-ups, ignoring: %m", n > 0 ? "enter" : "leave");
                p->lazy = false;
                p->lazy_failed_usec = now_usec;
                return;
        }
        if (n > 0 && !p->lazy)
                log_debug("Lazy wake-ups: %zu quiet tasks.", n);
        p->lazy = n > 0;
        p->lazy_since_usec = now_usec;
}

static void perf_source_post(EventSource *s, uint64_t now_usec) {
        PerfSource *p = perf_source(s);

        /* A CPU whose task's switch-out was lost is not a reason to tick (demand.c). */
        engine_expire_silent(p->head.opts.engine);
        perf_source_update_lazy(p, now_usec);
}

static int perf_source_cpu_offline(EventSource *s, int cpu) {
        return perf_events_cpu_offline(perf_source(s)->perf, cpu);
}

static int perf_source_cpu_online(EventSource *s, int cpu) {
        PerfSource *p = perf_source(s);
        int r;

        r = perf_events_cpu_online(p->perf, cpu);
        if (r >= 0)
                perf_source_tell_runtime(p); /* its detector may be refused */
        return r;
}

static int perf_source_reconfigure(EventSource *s, const Config *cfg) {
        PerfSource *p = perf_source(s);
        int r;

        r = perf_events_reconfigure(p->perf, cfg);
        perf_source_tell_runtime(p); /* new fds, same rule */
        return r;
}

static void perf_source_stats(const EventSource *s, EventSourceStats *ret) {
        const PerfSource *p = perf_source_const(s);
        const PerfEventsStats *ps = perf_events_stats(p->perf);

        *ret = (EventSourceStats) {
                .name = "perf",
                .events = ps->samples,
                .lost = ps->lost,
                .drains = ps->drains,
                .wakeups = ps->wakeups,
                .records = ps->samples,
                .lazy_switches = ps->lazy_switches,
                .lazy = ps->lazy,
                .iowait = ps->iowait,
                .cpu_frequency = ps->cpu_frequency,
        };
}

static void perf_source_free(EventSource *s) {
        PerfSource *p = perf_source(s);

        perf_events_free(p->perf);
        free(p);
}

static const EventSourceOps perf_source_ops = {
        .drain = perf_source_drain,
        .post = perf_source_post,
        .cpu_offline = perf_source_cpu_offline,
        .cpu_online = perf_source_cpu_online,
        .reconfigure = perf_source_reconfigure,
        .stats = perf_source_stats,
        .free = perf_source_free,
};

int event_source_perf_new(sd_event *event, const EventSourceOptions *opts, EventSource **ret) {
        _cleanup_free_ PerfSource *p = calloc(1, sizeof(PerfSource));
        int r;

        if (!p)
                return -ENOMEM;
        p->head = (EventSource) { .ops = &perf_source_ops, .type = EVENT_SOURCE_PERF, .opts = *opts };
        p->head.opts.type = EVENT_SOURCE_PERF;

        r = perf_events_new_flags(event, &opts->topology->online, opts->config,
                                  opts->observe ? PERF_EVENTS_CPU_FREQUENCY : 0, opts->handlers.event,
                                  opts->handlers.userdata, &p->perf);
        if (r < 0)
                return r;
        perf_events_set_lost_handler(p->perf, opts->handlers.lost);
        perf_source_tell_runtime(p);
        *ret = &TAKE_PTR(p)->head;
        return 0;
}
