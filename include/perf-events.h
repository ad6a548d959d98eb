/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The live event source: the sched tracepoints through perf, one ring per CPU, drained on the sd-event loop
 * and delivered as SchedEvents merged in timestamp order. Owns the tracepoint fds (sched_wakeup* filtered on
 * the daemon's own pid, so its own wake-ups never feed back into it; its switches are delivered, see
 * tracepoint_filter()), the rings, one io source per ring, the drain timer and the wakeup policy (config.h
 * WakeupMode):
 *
 *   immediate  sched_wakeup* samples wake the daemon (wakeup_events=1), the rest wait for the ring watermark
 *              (a quarter of the ring) or the drain timer;
 *   watermark  only the watermark and the drain timer (cfg->drain_interval_usec);
 *   adaptive   immediate while the event rate stays below cfg->adaptive_high_per_sec, watermark above it
 *              until the rate falls below a quarter of it. The switch swaps each CPU's sched_wakeup* fds for
 *              twins opened without wakeup_events (PERF_EVENT_IOC_DISABLE/ENABLE), so the kernel stops its
 *              per-sample wake-up too, not only the daemon (see perf-events.c for the measured costs).
 *
 * sched_stat_runtime is off unless PERF_EVENTS_STAT_RUNTIME is given (it fires on every switch and tick).
 * Needs root (or CAP_PERFMON + tracefs access); mounts tracefs when it is not mounted. No logging above
 * debug: errors are returned.
 */

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "macro.h"
#include "sched-event.h"

typedef struct PerfEvents PerfEvents;

/*
 * Called once per event, in timestamp order within one drain (events from one drain's rings are merged;
 * an event recorded before the last one delivered by an earlier drain is still delivered: the consumer
 * counts it as late). A negative return stops the drain: perf_events_drain() returns it, and from the
 * internal io/timer sources it ends the sd-event loop with that error (exit_on_failure).
 */
typedef int (*PerfEventsHandler)(const SchedEvent *ev, void *userdata);

typedef enum PerfEventsFlags {
        PERF_EVENTS_STAT_RUNTIME = 1 << 0,  /* also open sched_stat_runtime */
} PerfEventsFlags;

typedef struct PerfEventsStats {
        uint64_t samples;         /* events delivered to the handler */
        uint64_t lost;            /* events the kernel dropped because a ring was full (PERF_RECORD_LOST) */
        uint64_t overruns;        /* ring reads that found the data overwritten and skipped it */
        uint64_t malformed;       /* records or tracepoint payloads that failed to parse, skipped */
        uint64_t other_records;   /* non-sample records (throttling, …), skipped */
        uint64_t drains;          /* perf_events_drain() runs, whatever triggered them */
        uint64_t wakeups;         /* drains triggered by a ring fd becoming readable */
        uint64_t mode_switches;   /* immediate ↔ watermark transitions (adaptive, or a reload) */
        uint64_t rate_per_sec;    /* event rate over the last measurement window (~100 ms) */
        WakeupMode mode;          /* configured policy */
        bool immediate;           /* current state: sched_wakeup* samples wake the daemon */
        unsigned cpus;            /* CPUs with a ring */
        unsigned cpus_skipped;    /* requested CPUs perf refused (ENODEV, EINVAL, ENXIO: not in this kernel) */
        bool iowait;              /* sched_stat_iowait is open (the kernel has CONFIG_SCHEDSTATS) */
} PerfEventsStats;

/*
 * Opens sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task and sched_process_exit (and
 * sched_stat_runtime with PERF_EVENTS_STAT_RUNTIME, and sched_stat_iowait where the kernel has it) on every CPU of @cpus, with cfg->ring_pages data pages
 * per ring, and attaches the ring fds and the drain timer to @event. Returns 0, -EINVAL (bad config),
 * -ENODEV (no CPU of @cpus could be opened), -EBADMSG (unexpected tracefs format, see debug log), or the
 * errno of tracefs, perf_event_open(2), mmap(2) or sd-event.
 */
int perf_events_new(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsHandler handler,
                    void *userdata, PerfEvents **ret);
int perf_events_new_flags(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsFlags flags,
                          PerfEventsHandler handler, void *userdata, PerfEvents **ret);

/* Reads every ring, merges by time and delivers. Returns 0, the handler's negative return, or -ENOMEM. */
int perf_events_drain(PerfEvents *p);

/*
 * Applies cfg->wakeup, drain_interval_usec, adaptive_high_per_sec and ring_pages. Changing ring_pages
 * reopens the events: the rings are drained first, and on failure the old ones stay in place (a few events
 * between the two sets are missed). Other changes are immediate. Returns 0 or a negative errno.
 */
int perf_events_reconfigure(PerfEvents *p, const Config *cfg);

const PerfEventsStats *perf_events_stats(const PerfEvents *p);

PerfEvents *perf_events_free(PerfEvents *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(PerfEvents *, perf_events_free);
