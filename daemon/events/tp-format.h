/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Tracepoint layouts: the tracefs files events/sched/<name>/{id,format} (and events/power/cpu_frequency/), parsed once at start-up with
 * libtraceevent into plain offsets, for the pure decoder (daemon/events/tp-decode.h) that turns one raw tracepoint
 * record (a perf PERF_SAMPLE_RAW payload) into a SchedEvent with them. Layouts change across kernels
 * (shared/reference/schedutil.md §6: __data_loc comm in sched_migrate_task and sched_stat_runtime since 6.x,
 * vruntime gone from sched_stat_runtime in 6.8, `success` gone from sched_wakeup in ~5.14, group_dead added
 * to sched_process_exit in 6.16), so nothing here hard-codes an offset. No I/O on the hot path: decoding
 * reads only a TpFormat.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

typedef enum TpFieldId {
        TP_FIELD_COMM,            /* every event but sched_switch */
        TP_FIELD_PID,
        TP_FIELD_PRIO,            /* not in sched_stat_runtime, sched_stat_iowait */
        TP_FIELD_TARGET_CPU,      /* sched_wakeup* */
        TP_FIELD_ORIG_CPU,        /* sched_migrate_task */
        TP_FIELD_DEST_CPU,
        TP_FIELD_RUNTIME,         /* sched_stat_runtime, ns */
        TP_FIELD_DELAY,           /* sched_stat_iowait, ns */
        TP_FIELD_PREV_COMM,       /* sched_switch */
        TP_FIELD_PREV_PID,
        TP_FIELD_PREV_PRIO,
        TP_FIELD_PREV_STATE,
        TP_FIELD_NEXT_COMM,
        TP_FIELD_NEXT_PID,
        TP_FIELD_NEXT_PRIO,
        TP_FIELD_STATE,           /* power:cpu_frequency, kHz */
        TP_FIELD_CPU_ID,
        /* Optional: recorded when present (they tell kernel generations apart), never decoded. */
        TP_FIELD_SUCCESS,         /* sched_wakeup* before ~5.14 */
        TP_FIELD_VRUNTIME,        /* sched_stat_runtime before 6.8 */
        TP_FIELD_GROUP_DEAD,      /* sched_process_exit since 6.16 */
        _TP_FIELD_MAX,
        _TP_FIELD_INVALID = -EINVAL,
} TpFieldId;

typedef struct TpField {
        bool present;
        bool is_signed;
        bool data_loc;            /* __data_loc/__rel_loc: a u32 (len << 16 | offset) locating the bytes */
        bool rel_loc;             /* __rel_loc: that offset counts from the end of this field */
        uint16_t offset;
        uint16_t size;            /* bytes at offset: 1, 2, 4 or 8 for integers, N for char[N], 4 for a loc word */
} TpField;

typedef struct TpEvent {
        bool present;
        uint32_t id;              /* perf_event_attr.config for PERF_TYPE_TRACEPOINT */
        uint16_t min_size;        /* a record shorter than this cannot hold every decoded field */
        TpField fields[_TP_FIELD_MAX];
} TpEvent;

typedef struct TpFormat {
        TpField common_type;      /* the event id at the start of every record (u16 @0 on every kernel so far) */
        TpEvent events[_SCHED_EVENT_TYPE_MAX];
        /*
         * The sched_switch prev_state bit meaning "preempted, still runnable", taken from the print fmt:
         * TASK_REPORT_MAX (0x100) on 4.14+ (__trace_sched_switch_state() in include/trace/events/sched.h),
         * TASK_STATE_MAX (e.g. 2048) before.
         */
        uint64_t preempt_mask;
} TpFormat;

const char *tp_field_id_to_string(TpFieldId id);  /* the tracefs field name, "prev_state", … */

/*
 * Parses the text of one format file for event @type into @f->events[type] (and @f->common_type, and for
 * sched_switch @f->preempt_mask). @id is the content of the event's `id` file; @path names the file in
 * error messages only. Returns 0, or -EBADMSG (bad or truncated text, missing field, bad size), -ENOMEM.
 * On -EBADMSG and when @ret_error is non-NULL, *ret_error is a malloc'd "PATH: reason". @f is only changed
 * on success.
 */
int tp_format_parse_event(TpFormat *f, SchedEventType type, uint32_t id, const char *path, const char *text,
                          size_t size, char **ret_error);

/*
 * Reads <events_dir>/<subsystem>/<name>/{id,format} for every SchedEventType (events_dir is the tracefs `events`
 * directory, e.g. /sys/kernel/tracing/events, or a fixture tree). An optional event
 * (sched_event_type_is_optional()) whose directory is missing is left with present = false. Returns 0 and fills @ret, or a negative
 * errno (-ENOENT when a file is missing, -EBADMSG for bad content, …) with *ret_error (if non-NULL) set to a
 * malloc'd "PATH: reason" naming the file. @ret is only written on success.
 */
int tp_format_load(const char *events_dir, TpFormat *ret, char **ret_error);

struct tep_handle;

/*
 * The layouts from a libtraceevent handle that has parsed the events' formats already: a trace-cmd .dat's
 * (tracecmd_get_tep(), trace-dat.c), the formats of the kernel that recorded it. An event the handle does not
 * know is left with present = false (a trace recorded without it). The sched_switch preempted bit comes from
 * running its print fmt (0 if it never prints "R+": then only prev_state 0 is runnable). Returns 0, or -EBADMSG
 * with *ret_error (if non-NULL) a malloc'd "EVENT: reason" (a field missing or of a shape the decoder cannot
 * read, a trace of the other byte order), -ENOMEM. @ret is only written on success.
 */
int tp_format_from_tep(struct tep_handle *tep, TpFormat *ret, char **ret_error);

/* The event whose id is @id, or _SCHED_EVENT_TYPE_INVALID. */
SchedEventType tp_format_type_from_id(const TpFormat *f, uint32_t id);

/*
 * Whether sched_switch's prev stays enqueued: prev_state == 0 (TASK_RUNNING, "R") or the preempted bit set
 * ("R+"); anything else means prev went to sleep and was dequeued (reference §6.3).
 */
bool tp_format_prev_runnable(const TpFormat *f, int64_t prev_state);
