/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The perf event source's insides, shared by its files: perf-events.c (the wake-up states, set-up, quiet sets,
 * reconfiguration), perf-events-open.c (tracepoint fds, filters, rings), perf-events-drain.c (reading, ordering
 * and delivering the rings), perf-events-hotplug.c (CPUs going and coming). The API is include/events.h.
 */

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "events.h"
#include "perf-ring.h"
#include "tp-format.h"

/*
 * PERF_SAMPLE_PERIOD is not optional: with it, a tracepoint that counts more than 1 per hit
 * (sched_stat_runtime counts its runtime, __perf_count()) gives one sample carrying the count instead of one
 * sample per unit until throttled (perf_swevent_event() in kernel/events/core.c; measured, platform.md).
 */
#define SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define RATE_WINDOW_NS (100 * UINT64_C(1000000))
#define BATCH_MIN 1024
/* PERF_EVENT_IOC_SET_FILTER copies at most a page, NUL included (strndup_user(arg, PAGE_SIZE)): measured on
 * 6.18, 4095 characters are accepted and 4096 give EINVAL. 64 quiet pids take at most ~1.4 kB. */
#define FILTER_MAX 4096
#define LAZY_FDS 4                        /* the lazy twins of sched_wakeup and sched_wakeup_new */
#define FDS_MAX (_SCHED_EVENT_TYPE_MAX + 3) /* one per event, the immediate twins, the busy detector */
#define DETECTOR_RUNTIME_NS 1000000       /* "busy": ran 1 ms without a break (half a tick on a shorter one) */

/*
 * What a tracepoint fd is for, hence its attributes, its filter and the states it is enabled in. sched_wakeup
 * and sched_wakeup_new are opened twice on each CPU, with wakeup_events=1 (the immediate twin) and without
 * (the watermark twin), and again twice per quiet set (the lazy twins); exactly one of those is enabled for
 * any wake-up. Why not keep the immediate ones and just stop watching the ring fds when busy: each per-sample
 * wake-up costs the kernel an irq_work (a self-IPI, a VM exit here) whether or not anyone waits. Measured
 * with stress-ng --switch 2 (ns per context switch): 4.7 without tracing, 8.9 watermark, 28.8 immediate,
 * 27.4 immediate with the ring fds unwatched.
 */
typedef enum PerfFdRole {
        ROLE_ALWAYS,              /* every state: sched_switch, migrate, exit, (stat_runtime, stat_iowait) */
        ROLE_WATERMARK,           /* sched_wakeup*, no wakeup_events, `pid != SELF` */
        ROLE_IMMEDIATE,           /* sched_wakeup*, wakeup_events=1, `pid != SELF` */
        ROLE_DETECTOR,            /* sched_stat_runtime, wakeup_events=1, `runtime >= 1000000 && pid != SELF`
                                   * (500000 with a 1 ms tick: detector_runtime_ns()) */
        ROLE_LAZY_IMMEDIATE,      /* sched_wakeup*, wakeup_events=1, `pid != SELF && pid != Q1 && ...` */
        ROLE_LAZY_WATERMARK,      /* sched_wakeup*, no wakeup_events, `pid != SELF && (pid == Q1 || ...)` */
} PerfFdRole;

typedef enum PerfState {
        STATE_WATERMARK,
        STATE_IMMEDIATE,
        STATE_LAZY,
} PerfState;

typedef struct PerfFd {
        int fd;
        SchedEventType type;
        PerfFdRole role;
        bool enabled;
} PerfFd;

typedef struct PerfCpu {
        PerfEvents *owner;
        int cpu;
        PerfFd fds[FDS_MAX];              /* fds[0] is sched_switch: it owns the ring */
        size_t n_fds;
        PerfFd lazy[LAZY_FDS];            /* the lazy twins of the current quiet set, if open */
        size_t n_lazy;
        PerfFd stale[LAZY_FDS];           /* those of the previous set, during a switch */
        size_t n_stale;
        PerfRing *ring;
        sd_event_source *io;
        size_t run, run_end;              /* during a drain: this ring's events in owner->batch */

        uint64_t switch_from_ns, switch_until_ns; /* the last switch window (both sets of fds enabled) */
        uint64_t collected_ns;            /* when the last drain started reading this ring */
        uint64_t lost_reported;           /* of this ring's stats.lost, handed to the lost handler (a new ring: 0) */
        bool lazy_ok;                     /* in STATE_LAZY, this CPU uses the lazy twins (see lazy_cpus) */
        SchedEvent last_wakeup;           /* the last record read from this ring, if a wake-up */
        bool has_last_wakeup;
} PerfCpu;

struct PerfEvents {
        sd_event *event;
        cpu_set_t requested;
        PerfEventsFlags flags;
        PerfEventsHandler handler;
        PerfEventsLostHandler lost_handler;
        void *userdata;
        pid_t self;
        TpFormat format;

        unsigned ring_pages;              /* of the open generation of fds */
        uint64_t drain_interval_usec;
        uint64_t adaptive_high_per_sec;

        PerfCpu *cpus;
        size_t n_cpus;
        PerfCpu **heap;                   /* merge heap, room for every requested CPU */
        sd_event_source *timer;           /* the drain timer: enabled in STATE_WATERMARK only */

        PerfState state;                  /* applied on every CPU */
        int32_t quiet[PERF_EVENTS_QUIET_MAX]; /* the quiet set, sorted; applied while immediate */
        size_t n_quiet;
        bool lazy_open;                   /* every CPU's lazy twins for this set are open */
        cpu_set_t lazy_cpus;              /* the CPUs whose quiet wake-ups may be lazy (perf_events_set_lazy_cpus()) */
        bool detector;                    /* the busy detector is open (not with PERF_EVENTS_STAT_RUNTIME) */
        uint64_t detector_runtime_ns;     /* its filter: detector_runtime_ns() of the tick at start-up */
        cpu_set_t offline;                /* closed by perf_events_cpu_offline(): no generation opens them */
        bool break_filters;               /* test hook */

        SchedEvent *batch;                /* reused across drains: grows to the high-water mark only */
        size_t n_batch, batch_allocated;

        uint64_t window_start_ns, window_events;
        uint64_t decode_errors;
        PerfRingStats retired;            /* counters of rings closed by a reconfigure */
        PerfEventsStats stats;
};

/* perf-events.c */
int perf_cpu_switch(PerfCpu *c, PerfState to);
int perf_cpu_add_io(PerfEvents *p, PerfCpu *c);

/* perf-events-open.c */
bool perf_is_wakeup(SchedEventType t);
bool perf_role_immediate(PerfFdRole role);
void perf_fds_close(PerfFd *fds, size_t *n);
void perf_cpu_close(PerfCpu *c);
void perf_cpus_free(PerfCpu *cpus, size_t n);
int perf_cpu_open(PerfEvents *p, unsigned ring_pages, int cpu, PerfCpu *c);
int perf_cpu_open_lazy(PerfEvents *p, unsigned ring_pages, PerfCpu *c, bool *ret_filter_error);

/* perf-events-drain.c */
void perf_events_refresh_stats(PerfEvents *p);
int perf_rings_collect(PerfEvents *p);
int perf_rings_deliver(PerfEvents *p);
