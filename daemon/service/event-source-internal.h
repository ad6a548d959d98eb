/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the event sources share behind daemon/service/event-source.h: the operations table each one fills. */

#include "event-source.h"

typedef struct EventSourceOps {
        int (*drain)(EventSource *s);
        void (*post)(EventSource *s, uint64_t now_usec);
        int (*cpu_offline)(EventSource *s, int cpu);
        int (*cpu_online)(EventSource *s, int cpu);
        int (*reconfigure)(EventSource *s, const Config *cfg);
        int (*task_rule)(EventSource *s, int32_t tid, int rule);   /* NULL: the engine's alone (perf) */
        int (*cpu_state)(const EventSource *s, unsigned cpu, CpuState *ret); /* NULL: the engine's (perf) */
        int (*refresh_cpu)(EventSource *s, unsigned cpu);                    /* NULL: always current (perf) */
        void (*stats)(const EventSource *s, EventSourceStats *ret);
        void (*free)(EventSource *s);
} EventSourceOps;

/* The common head of every source: each embeds it first. */
struct EventSource {
        const EventSourceOps *ops;
        EventSourceType type;
        EventSourceOptions opts;  /* a copy; the topology, config and engine stay the manager's */
};

/* event-source-perf.c */
int event_source_perf_new(sd_event *event, const EventSourceOptions *opts, EventSource **ret);
/* event-source-bpf.c: -EOPNOTSUPP with *@ret_why when the kernel or the build cannot run it. */
int event_source_bpf_new(sd_event *event, const EventSourceOptions *opts, EventSource **ret, char **ret_why);
