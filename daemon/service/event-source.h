/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The live event source, as the manager sees it (issue #23 item 1): one object, one small interface, whichever
 * source is behind it.
 *
 *   perf   the scheduler tracepoints through perf rings, one per CPU (events.h), decoded into SchedEvents
 *          that feed the daemon's own model (governor.h), which decides. Its wake-up policy (watermarks, adaptive,
 *          lazy wake-ups and their quiet sets) is its own business: event-source-perf.c.
 *   bpf    tp_btf programs that read the kernel's own signals and decide in the kernel (governor.h): the
 *          daemon receives Decisions only, when a frequency must change, and hands them to the engine's
 *          bookkeeping (engine_apply_decision()). event-source-bpf.c.
 *
 * Both call back the manager through EventSourceHandlers: @event for each scheduler event of a model source,
 * @lost when a model source lost events of a CPU, @decision for each decision of a deciding source. The
 * manager calls event_source_post() after every wake-up of its loop (a source's per-wake-up bookkeeping: perf's
 * quiet set, bpf's policy state), event_source_drain() before it reads the model's clock (the tick), and the
 * hotplug and reconfigure entries. `replay` feeds the same engine from a trace file, synchronously
 * (replay.h): it has no loop to sit on.
 *
 * No logging above debug inside a source, except what the source chose at start-up (one info line).
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "events.h"
#include "governor.h"
#include "macro.h"
#include "topology.h"

typedef struct EventSource EventSource;
typedef struct Engine Engine;
typedef struct CpuState CpuState;

/* EventSourceType ([events] source = auto|perf|bpf) is config.h's. */

typedef struct EventSourceHandlers {
        /* A scheduler event of a model source, in time order (events.h PerfEventsHandler). */
        int (*event)(const SchedEvent *ev, void *userdata);
        /* A model source lost @n_lost events of @cpu before @at_ns (a ring was full). */
        int (*lost)(int cpu, uint64_t n_lost, uint64_t at_ns, void *userdata);
        /* A decision of a deciding source: 0 when written, a negative errno to keep the old frequency. */
        int (*decision)(const Decision *d, void *userdata);
        void *userdata;
} EventSourceHandlers;

typedef struct EventSourceOptions {
        EventSourceType type;
        bool observe;             /* observe mode: perf with power:cpu_frequency (the kernel's choices) */
        const Topology *topology;
        const Config *config;
        Engine *engine;           /* the model (perf: its quiet tasks; bpf: the policies' state it mirrors) */
        EventSourceHandlers handlers;
} EventSourceOptions;

typedef struct EventSourceStats {
        const char *name;         /* "perf" or "bpf" */
        uint64_t events;          /* scheduler events the source saw (bpf: counted in the kernel) */
        uint64_t lost;            /* events lost (perf: full rings; bpf: records the ring had no room for) */
        uint64_t drains;          /* reads of the source, whatever triggered them */
        uint64_t wakeups;         /* of those, woken by the source's fds */
        uint64_t records;         /* bpf: decisions read from its ring; perf: events delivered */
        uint64_t deferred;        /* bpf: changes the remote rule held for a local event (in the kernel) */
        uint64_t lazy_switches;   /* perf: lazy configurations applied */
        bool lazy;                /* perf: quiet tasks' wake-ups do not wake us now */
        bool iowait;              /* the iowait boost sees its event (perf: sched_stat_iowait; bpf: p->in_iowait) */
        bool cpu_frequency;       /* power:cpu_frequency is read (observe mode) */
} EventSourceStats;

/*
 * Opens the source @opts asks for on @event. With EVENT_SOURCE_AUTO: bpf when it loads and attaches, perf
 * otherwise; *@ret_why (malloc'd, may be NULL) says why that one ("BTF present, programs attached", "no BTF:
 * ..."). Errors as the source's: -EBADMSG (perf: unexpected tracefs formats, event_source_format_error()),
 * -EACCES/-EPERM (privileges), -EOPNOTSUPP (bpf asked for and not possible here; *@ret_why says why), others.
 */
int event_source_new(sd_event *event, const EventSourceOptions *opts, EventSource **ret, char **ret_why);
EventSource *event_source_free(EventSource *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(EventSource *, event_source_free);

EventSourceType event_source_type(const EventSource *s);
/* The source takes the decisions itself (bpf): the model sees no events, and is never "busy". */
bool event_source_decides(const EventSource *s);
/* Reads what the source holds now and delivers it. Returns 0 or a handler's negative return. */
int event_source_drain(EventSource *s);
/* After every wake-up of the manager's loop: the source's own bookkeeping (no timer of its own for it). */
void event_source_post(EventSource *s, uint64_t now_usec);
/* CPU hotplug: drains, then closes (offline) or reopens (online) @cpu's part. See events.h. */
int event_source_cpu_offline(EventSource *s, int cpu);
int event_source_cpu_online(EventSource *s, int cpu);
/* A new configuration ([events] and [governor] settings the source applies itself). */
int event_source_reconfigure(EventSource *s, const Config *cfg);
/*
 * Task @tid's per-process rule (an index into the configuration's RuleSet, -1 = none, also at its exit), for a
 * source that decides itself (bpf: the task's clamp in the kernel). The perf source's model keeps the rules in the
 * engine (engine_task_set_rule()), so this is 0 there. A negative errno when the source cannot take it.
 */
int event_source_task_rule(EventSource *s, int32_t tid, int rule);
/*
 * @cpu's signals as the source that decides saw them last (bpf: the kernel's own, read by its programs), for
 * status. -EOPNOTSUPP when the engine's model holds them (perf: engine_cpu_state()); -ENOENT: not seen yet.
 */
int event_source_cpu_state(const EventSource *s, unsigned cpu, CpuState *ret);
/* Brings @cpu's state as event_source_cpu_state() gives it up to now, for a status read (a D-Bus Get, explain):
 * between decisions the source keeps what it read at the last one. 0 where there is nothing to bring up. */
int event_source_refresh_cpu(EventSource *s, unsigned cpu);
void event_source_stats(const EventSource *s, EventSourceStats *ret);
/* Why perf refused the tracefs formats (-EBADMSG from event_source_new()): see perf_events_format_error(). */
int event_source_format_error(char **ret);
