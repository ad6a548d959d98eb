/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched-event.c: the event types (include/events.h): their tracepoint names and tracefs subsystems
 * (include/trace/events/sched.h, power.h), and which of them a kernel may lack. Decoding a raw record into a
 * SchedEvent is tp-decode.c's; parsing a `perf script` line, trace-parse.c's.
 */

#include <string.h>

#include "events.h"
#include "macro.h"

static const char *const sched_event_type_table[_SCHED_EVENT_TYPE_MAX] = {
        [SCHED_EVENT_SWITCH] = "sched_switch",
        [SCHED_EVENT_WAKEUP] = "sched_wakeup",
        [SCHED_EVENT_WAKEUP_NEW] = "sched_wakeup_new",
        [SCHED_EVENT_MIGRATE] = "sched_migrate_task",
        [SCHED_EVENT_EXIT] = "sched_process_exit",
        [SCHED_EVENT_RUNTIME] = "sched_stat_runtime",
        [SCHED_EVENT_STAT_IOWAIT] = "sched_stat_iowait",
        [SCHED_EVENT_CPU_FREQUENCY] = "cpu_frequency",
};

const char *sched_event_type_to_string(SchedEventType t) {
        if (t < 0 || t >= _SCHED_EVENT_TYPE_MAX)
                return NULL;
        return sched_event_type_table[t];
}

const char *sched_event_type_subsystem(SchedEventType t) {
        if (t < 0 || t >= _SCHED_EVENT_TYPE_MAX)
                return NULL;
        return t == SCHED_EVENT_CPU_FREQUENCY ? "power" : "sched";
}

SchedEventType sched_event_type_from_string(const char *s) {
        const char *colon;

        if (!s)
                return _SCHED_EVENT_TYPE_INVALID;
        colon = strchr(s, ':');
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                const char *sub = sched_event_type_subsystem(t);

                if (colon && ((size_t) (colon - s) != strlen(sub) || strncmp(s, sub, strlen(sub)) != 0))
                        continue;
                if (streq(colon ? colon + 1 : s, sched_event_type_table[t]))
                        return t;
        }
        return _SCHED_EVENT_TYPE_INVALID;
}

bool sched_event_type_is_optional(SchedEventType t) {
        return t == SCHED_EVENT_STAT_IOWAIT || t == SCHED_EVENT_CPU_FREQUENCY;
}

int32_t sched_event_task_pid(const SchedEvent *ev) {
        switch (ev->type) {
        case SCHED_EVENT_SWITCH:
                return ev->sw.next_pid != 0 ? ev->sw.next_pid : ev->sw.prev_pid;
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                return ev->wakeup.pid;
        case SCHED_EVENT_MIGRATE:
                return ev->migrate.pid;
        case SCHED_EVENT_EXIT:
                return ev->exit.pid;
        case SCHED_EVENT_RUNTIME:
                return ev->runtime.pid;
        case SCHED_EVENT_STAT_IOWAIT:
                return ev->iowait.pid;
        case SCHED_EVENT_CPU_FREQUENCY:
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                break;
        }
        return 0;
}

const char *sched_event_task_comm(const SchedEvent *ev) {
        switch (ev->type) {
        case SCHED_EVENT_SWITCH:
                return ev->sw.next_pid != 0 ? ev->sw.next_comm : ev->sw.prev_comm;
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                return ev->wakeup.comm;
        case SCHED_EVENT_MIGRATE:
                return ev->migrate.comm;
        case SCHED_EVENT_EXIT:
                return ev->exit.comm;
        case SCHED_EVENT_RUNTIME:
                return ev->runtime.comm;
        case SCHED_EVENT_STAT_IOWAIT:
                return ev->iowait.comm;
        case SCHED_EVENT_CPU_FREQUENCY:
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                break;
        }
        return NULL;
}
