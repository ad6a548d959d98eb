/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event-source.c: the seam between the manager and its live event source (daemon/service/event-source.h): which
 * source to open, and the calls that go to whichever is open.
 */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-source-internal.h"
#include "event-source.h"
#include "events.h"
#include "log.h"

/*
 * auto: bpf where it runs. What keeps the daemon on perf is said in *@ret_why, so that the one log line the
 * manager writes names the source and the reason.
 */
static int event_source_auto(sd_event *event, const EventSourceOptions *opts, EventSource **ret, char **ret_why) {
        _cleanup_free_ char *why = NULL;
        EventSourceOptions o = *opts;
        int r;

        o.type = EVENT_SOURCE_BPF;
        r = event_source_bpf_new(event, &o, ret, &why);
        if (r >= 0) {
                if (ret_why)
                        *ret_why = strdup("the kernel has BTF and the programs loaded and attached");
                return r;
        }
        if (r == -ENOMEM)
                return r;
        log_debug_errno(r, "BPF event source unavailable (%s), using perf: %m", why ?: "no reason given");
        o.type = EVENT_SOURCE_PERF;
        r = event_source_perf_new(event, &o, ret);
        if (r >= 0 && ret_why && asprintf(ret_why, "the BPF source cannot run here: %s", why ?: strerror(-r)) < 0)
                *ret_why = NULL;
        return r;
}

int event_source_new(sd_event *event, const EventSourceOptions *opts, EventSource **ret, char **ret_why) {
        assert(event && opts && opts->topology && opts->config && opts->engine && ret);

        if (ret_why)
                *ret_why = NULL;
        switch (opts->type) {
        case EVENT_SOURCE_PERF:
                return event_source_perf_new(event, opts, ret);
        case EVENT_SOURCE_BPF:
                return event_source_bpf_new(event, opts, ret, ret_why);
        case EVENT_SOURCE_AUTO:
                return event_source_auto(event, opts, ret, ret_why);
        default:
                return -EINVAL;
        }
}

EventSource *event_source_free(EventSource *s) {
        if (s)
                s->ops->free(s);
        return NULL;
}

EventSourceType event_source_type(const EventSource *s) {
        return s->type;
}

bool event_source_decides(const EventSource *s) {
        return s->type == EVENT_SOURCE_BPF;
}

int event_source_drain(EventSource *s) {
        return s->ops->drain(s);
}

void event_source_post(EventSource *s, uint64_t now_usec) {
        if (s->ops->post)
                s->ops->post(s, now_usec);
}

int event_source_cpu_offline(EventSource *s, int cpu) {
        return s->ops->cpu_offline(s, cpu);
}

int event_source_cpu_online(EventSource *s, int cpu) {
        return s->ops->cpu_online(s, cpu);
}

int event_source_reconfigure(EventSource *s, const Config *cfg) {
        return s->ops->reconfigure(s, cfg);
}

int event_source_task_rule(EventSource *s, int32_t tid, int rule) {
        return s->ops->task_rule ? s->ops->task_rule(s, tid, rule) : 0;
}

int event_source_cpu_state(const EventSource *s, unsigned cpu, CpuState *ret) {
        return s->ops->cpu_state ? s->ops->cpu_state(s, cpu, ret) : -EOPNOTSUPP;
}

int event_source_refresh_cpu(EventSource *s, unsigned cpu) {
        return s->ops->refresh_cpu ? s->ops->refresh_cpu(s, cpu) : 0;
}

void event_source_stats(const EventSource *s, EventSourceStats *ret) {
        *ret = (EventSourceStats) {};
        s->ops->stats(s, ret);
}

int event_source_format_error(char **ret) {
        return perf_events_format_error(ret);
}
