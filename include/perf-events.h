/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The live event source: the sched tracepoints through perf, one ring per CPU, drained on the sd-event loop
 * and delivered as SchedEvents merged in timestamp order. Owns the tracepoint fds (sched_wakeup* filtered on
 * the daemon's own pid, so its own wake-ups never feed back into it; its switches are delivered, see
 * tracepoint_filter_build()), the rings, one io source per ring, the drain timer and the wakeup policy
 * (config.h WakeupMode). What wakes the daemon (issue #9: a quiet machine must not wake it more than a few
 * times a second):
 *
 *   immediate  each sched_wakeup* sample (wakeup_events=1); every other event waits for the ring watermark
 *              (a quarter of the ring). No timer: between wake-ups the caller drains with
 *              perf_events_drain() (the manager does from its tick while a CPU is busy).
 *   watermark  the ring watermark and the drain timer (cfg->drain_interval_usec), the only state in which
 *              the timer is armed.
 *   adaptive   immediate while the event rate (measured at every drain, whatever triggered it) stays below
 *              cfg->adaptive_high_per_sec, watermark above it until the rate falls below a quarter of it.
 *              The switch swaps each CPU's sched_wakeup* fds for twins opened without wakeup_events
 *              (PERF_EVENT_IOC_ENABLE/DISABLE), so the kernel stops its per-sample wake-up too, not only the
 *              daemon (see perf-events.c for the measured costs).
 *
 * Lazy mode (perf_events_set_quiet()): while wake-ups are immediate, the wake-ups of a set of "quiet" tasks
 * (whose wake-ups cannot change a frequency now, the manager's call) are still recorded, in order, exactly
 * once, but wait in the ring instead of waking the daemon.
 *
 * The busy detector (sched_stat_runtime with runtime >= 1 ms, or half of a shorter tick; wakeup_events=1), on in
 * every mode, wakes the daemon when any task other than the daemon has run 1 ms without a break, at the kernel's
 * next tick (HZ=250: within ~4 ms), its samples delivered as SCHED_EVENT_RUNTIME: in lazy mode it sees a hog a
 * quiet task started, and in every mode it tells a running task from a CPU whose switch-out was lost
 * (perf_events_reports_runtime()).
 *
 * sched_stat_runtime is otherwise off unless PERF_EVENTS_STAT_RUNTIME is given (it fires on every switch and
 * tick; with it no detector is opened, and in lazy mode a hog started by a quiet task is seen at the
 * watermark or the caller's next drain). Needs root (or CAP_PERFMON + tracefs access); mounts tracefs when it
 * is not mounted. No logging above debug: errors are returned.
 */

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "macro.h"
#include "sched-event.h"

typedef struct PerfEvents PerfEvents;

/* At most this many quiet pids (perf_events_set_quiet()); more are ignored. */
#define PERF_EVENTS_QUIET_MAX 64

/*
 * Called once per event, in timestamp order within one drain (events from one drain's rings are merged;
 * an event recorded before the last one delivered by an earlier drain is still delivered: the consumer
 * counts it as late). A negative return stops the drain: perf_events_drain() returns it, and from the
 * internal io/timer sources it ends the sd-event loop with that error (exit_on_failure).
 */
typedef int (*PerfEventsHandler)(const SchedEvent *ev, void *userdata);

/*
 * Called at a drain that found a ring's records lost (it was full: PERF_RECORD_LOST), before that drain's
 * events, with the CPU, how many were lost since the last call, and the time of the first event read after
 * the loss (or of the drain). Same return rules as the handler. The userdata is the handler's.
 */
typedef int (*PerfEventsLostHandler)(int cpu, uint64_t n_lost, uint64_t at_ns, void *userdata);

typedef enum PerfEventsFlags {
        PERF_EVENTS_STAT_RUNTIME = 1 << 0,  /* also open sched_stat_runtime */
        PERF_EVENTS_CPU_FREQUENCY = 1 << 1, /* also open power:cpu_frequency where the kernel has it (observe mode):
                                             * in the rings, read at the drains the scheduler events cause */
} PerfEventsFlags;

typedef struct PerfEventsStats {
        uint64_t samples;         /* events delivered to the handler */
        uint64_t lost;            /* events the kernel dropped because a ring was full (PERF_RECORD_LOST) */
        uint64_t overruns;        /* ring reads that found the data overwritten and skipped it */
        uint64_t malformed;       /* records or tracepoint payloads that failed to parse, skipped */
        uint64_t other_records;   /* non-sample records (throttling, …), skipped */
        uint64_t duplicates;      /* wake-ups recorded twice in a state switch's window, dropped */
        uint64_t drains;          /* perf_events_drain() runs, whatever triggered them */
        uint64_t wakeups;         /* drains triggered by a ring fd becoming readable */
        uint64_t mode_switches;   /* immediate ↔ watermark transitions (adaptive, or a reload) */
        uint64_t rate_per_sec;    /* event rate over the last measurement window (≥ 100 ms, between drains) */
        WakeupMode mode;          /* configured policy */
        bool immediate;           /* current state: sched_wakeup* samples wake the daemon (no drain timer) */
        bool lazy;                /* current state: immediate, but the quiet set's wake-ups do not wake it */
        unsigned quiet_pids;      /* the quiet set (applied while immediate, kept while watermark) */
        uint64_t lazy_switches;   /* lazy configurations applied: entering, leaving, a new quiet set while lazy */
        uint64_t filter_errors;   /* tracepoint filters the kernel refused (lazy mode fell back to immediate) */
        unsigned cpus;            /* CPUs with a ring */
        unsigned cpus_skipped;    /* requested CPUs perf refused (ENODEV, EINVAL, ENXIO: not in this kernel) */
        bool iowait;              /* sched_stat_iowait is open (the kernel has CONFIG_SCHEDSTATS) */
        bool cpu_frequency;       /* power:cpu_frequency is open (PERF_EVENTS_CPU_FREQUENCY, CONFIG_CPU_FREQ) */
} PerfEventsStats;

/*
 * Opens sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task and sched_process_exit (and
 * sched_stat_runtime with PERF_EVENTS_STAT_RUNTIME, and sched_stat_iowait where the kernel has it; and,
 * disabled until lazy mode, the busy detector) on every CPU of @cpus, with cfg->ring_pages data pages per
 * ring, and attaches the ring fds and the drain timer to @event. Returns 0, -EINVAL (bad config), -ENODEV
 * (no CPU of @cpus could be opened), -EBADMSG (unexpected tracefs format, see debug log), or the errno of
 * tracefs, perf_event_open(2), mmap(2) or sd-event.
 */
int perf_events_new(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsHandler handler,
                    void *userdata, PerfEvents **ret);
int perf_events_new_flags(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsFlags flags,
                          PerfEventsHandler handler, void *userdata, PerfEvents **ret);

void perf_events_set_lost_handler(PerfEvents *p, PerfEventsLostHandler handler);

/* Why the tracefs formats were refused (perf_events_new() returned -EBADMSG): the format file and what in it
 * is not the shape the decoders read (tp-format.c), malloc'd into @ret; 0 when they load now. */
int perf_events_format_error(char **ret);

/*
 * Reads every ring, merges by time and delivers. Also measures the event rate (adaptive switches happen
 * here). Returns 0, the handler's negative return, or -ENOMEM.
 */
int perf_events_drain(PerfEvents *p);

/*
 * Sets the quiet set: @n_pids == 0 leaves lazy mode; otherwise the first PERF_EVENTS_QUIET_MAX distinct pids
 * of @pids (the daemon's own is dropped; if nothing is left, as n_pids == 0) become the quiet set, entering
 * lazy mode or replacing the set. Applied at once while wake-ups are immediate (immediate mode, adaptive in
 * its immediate state); in the watermark state it is only remembered, and applied when adaptive goes back
 * to immediate. Setting the same set again costs nothing; a new set opens 4 fds per CPU (a tracepoint fd
 * takes one filter in its life) and closes the old ones.
 *
 * Returns 0; -EINVAL (a pid <= 0, or pids NULL); -EOPNOTSUPP (no busy detector: the kernel refused its
 * filter); or, if the lazy fds cannot be opened (a filter the kernel refuses, counted in
 * stats.filter_errors; EMFILE, …), their errno: then the quiet set is forgotten and wake-ups are in normal
 * immediate mode. Another negative errno: an enable/disable ioctl failed (the state may then be mixed).
 */
int perf_events_set_quiet(PerfEvents *p, const int32_t *pids, size_t n_pids);
/* Whether a running task is reported (busy detector or PERF_EVENTS_STAT_RUNTIME): only then may silence end a
 * run (engine_set_runtime_reported()). False once the kernel refused the detector's filter. */
bool perf_events_reports_runtime(const PerfEvents *p);
/*
 * The CPUs on which the quiet set's wake-ups may be lazy (default: all). On the others the quiet tasks'
 * wake-ups are immediate like everyone's; with none, lazy mode is plain immediate mode (the quiet set and its
 * fds are kept). A change costs enable/disable ioctls on the CPUs that change, no new fds. Returns 0, -EINVAL,
 * or the negative errno of a failed ioctl.
 */
int perf_events_set_lazy_cpus(PerfEvents *p, const cpu_set_t *cpus);

/*
 * Applies cfg->wakeup, drain_interval_usec, adaptive_high_per_sec and ring_pages. Changing ring_pages
 * reopens the events: the rings are drained first, and on failure the old ones stay in place (a few events
 * between the two sets are missed). Other changes are immediate. The quiet set is kept. Returns 0 or a
 * negative errno.
 */
int perf_events_reconfigure(PerfEvents *p, const Config *cfg);

/*
 * CPU hotplug (the kernel drops a CPU's perf events for good when it goes offline; perf-events.c).
 *
 * perf_events_cpu_offline(): drains every ring first (what @cpu's ring holds is delivered, as are the
 * others'), then closes that CPU's fds, ring and io source; later drains, reconfigures and quiet-set changes
 * leave it out. Its ring's counters stay in the stats totals. A CPU without events (never opened, already
 * offline) is just marked offline. Returns 0, -EINVAL, or the handler's negative return from the drain (then
 * nothing was closed).
 *
 * perf_events_cpu_online(): opens @cpu again as the other CPUs are now: the same events and ring size, the
 * lazy twins of the current quiet set if they are open, and enabled for the current wake-up state
 * (watermark, immediate, or lazy with @cpu's bit of the lazy CPUs; adaptive's state and the drain timer are
 * shared). A CPU outside the set given to perf_events_new() is added to it. Already open: 0, nothing done.
 * Returns 0; -ENODEV when the kernel has @cpu offline (it stays closed); -EINVAL; -ENOMEM; or the errno of
 * perf_event_open(2), mmap(2), an ioctl or sd-event (nothing of @cpu stays open).
 *
 * Neither may be called from a PerfEventsHandler or PerfEventsLostHandler (inside a drain).
 */
int perf_events_cpu_offline(PerfEvents *p, int cpu);
int perf_events_cpu_online(PerfEvents *p, int cpu);

const PerfEventsStats *perf_events_stats(const PerfEvents *p);

/* Introspection, for tests: CPU @cpu's ring fd (-ENOENT if it has none), and the drain timer source. */
int perf_events_ring_fd(const PerfEvents *p, int cpu);
sd_event_source *perf_events_drain_timer(const PerfEvents *p);
/* Test hook: lazy filters built from now on name a field the tracepoint lacks (the kernel refuses them). */
void perf_events_test_break_filters(PerfEvents *p, bool b);

PerfEvents *perf_events_free(PerfEvents *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(PerfEvents *, perf_events_free);
