/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tp-decode.c: one raw tracepoint record → SchedEvent with the offsets tp-format.c read from tracefs
 * (daemon/events/tp-decode.h). Pure and bounds-checked: the record comes from a perf ring whose contents we do not
 * trust to match the format (a corrupt or short record must give -EBADMSG, never an out-of-bounds read).
 */

#include <string.h>

#include "macro.h"
#include "tp-decode.h"

/*
 * An integer field, sign-extended per the format's `signed:`. The caller checked it lies inside the record.
 * Inlined: a record has up to seven of them, and replay decodes millions of records (issue #25).
 */
static _always_inline_ int64_t field_int(const TpField *fl, const uint8_t *raw) {
        const uint8_t *p = raw + fl->offset;
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;

        switch (fl->size) {
        case 1:
                memcpy(&u8, p, 1);
                return fl->is_signed ? (int64_t) (int8_t) u8 : (int64_t) u8;
        case 2:
                memcpy(&u16, p, 2);
                return fl->is_signed ? (int64_t) (int16_t) u16 : (int64_t) u16;
        case 4:
                memcpy(&u32, p, 4);
                return fl->is_signed ? (int64_t) (int32_t) u32 : (int64_t) u32;
        default:
                memcpy(&u64, p, 8);
                return (int64_t) u64;
        }
}

/*
 * A comm: char[N] in place, or __data_loc/__rel_loc (a u32 `len << 16 | offset`, include/trace/stages/
 * stage1_struct_define.h and stage5_get_offsets.h; __rel_loc offsets count from the end of the loc word).
 * Copied up to the first NUL and truncated to TASK_COMM_LEN - 1 bytes.
 */
static int field_comm(const TpField *fl, const uint8_t *raw, size_t size, char ret[static TASK_COMM_LEN]) {
        size_t off = fl->offset, len = fl->size, n;
        uint32_t loc;

        if (fl->data_loc) {
                memcpy(&loc, raw + fl->offset, sizeof(loc));
                off = (loc & 0xffff) + (fl->rel_loc ? (size_t) fl->offset + fl->size : 0);
                len = loc >> 16;
                if (off > size || len > size - off)
                        return -EBADMSG;
        }
        n = strnlen((const char *) raw + off, MIN(len, (size_t) TASK_COMM_LEN - 1));
        memcpy(ret, raw + off, n);
        ret[n] = '\0';
        return 0;
}

static int decode_switch(const TpEvent *e, const uint8_t *raw, size_t size, SchedEvent *ev) {
        const TpField *f = e->fields;
        int r;

        r = field_comm(&f[TP_FIELD_PREV_COMM], raw, size, ev->sw.prev_comm);
        if (r < 0)
                return r;
        r = field_comm(&f[TP_FIELD_NEXT_COMM], raw, size, ev->sw.next_comm);
        if (r < 0)
                return r;
        ev->sw.prev_pid = (int32_t) field_int(&f[TP_FIELD_PREV_PID], raw);
        ev->sw.prev_prio = (int32_t) field_int(&f[TP_FIELD_PREV_PRIO], raw);
        ev->sw.prev_state = field_int(&f[TP_FIELD_PREV_STATE], raw);
        ev->sw.next_pid = (int32_t) field_int(&f[TP_FIELD_NEXT_PID], raw);
        ev->sw.next_prio = (int32_t) field_int(&f[TP_FIELD_NEXT_PRIO], raw);
        return 0;
}

/*
 * The fields every non-switch event shares (comm, pid, and prio where the event has one); the per-type
 * extras follow. The union members start with the same comm/pid/prio layout, but we write each explicitly
 * rather than rely on that.
 */
static int decode_task(const TpEvent *e, const uint8_t *raw, size_t size, SchedEvent *ev) {
        const TpField *f = e->fields;
        char comm[TASK_COMM_LEN];
        int32_t pid, prio;
        int r;

        r = field_comm(&f[TP_FIELD_COMM], raw, size, comm);
        if (r < 0)
                return r;
        pid = (int32_t) field_int(&f[TP_FIELD_PID], raw);
        prio = f[TP_FIELD_PRIO].present ? (int32_t) field_int(&f[TP_FIELD_PRIO], raw) : 0;

        switch (ev->type) {
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                memcpy(ev->wakeup.comm, comm, sizeof(comm));
                ev->wakeup.pid = pid;
                ev->wakeup.prio = prio;
                ev->wakeup.target_cpu = (int32_t) field_int(&f[TP_FIELD_TARGET_CPU], raw);
                return 0;
        case SCHED_EVENT_MIGRATE:
                memcpy(ev->migrate.comm, comm, sizeof(comm));
                ev->migrate.pid = pid;
                ev->migrate.prio = prio;
                ev->migrate.orig_cpu = (int32_t) field_int(&f[TP_FIELD_ORIG_CPU], raw);
                ev->migrate.dest_cpu = (int32_t) field_int(&f[TP_FIELD_DEST_CPU], raw);
                return 0;
        case SCHED_EVENT_EXIT:
                memcpy(ev->exit.comm, comm, sizeof(comm));
                ev->exit.pid = pid;
                ev->exit.prio = prio;
                return 0;
        case SCHED_EVENT_RUNTIME:
                memcpy(ev->runtime.comm, comm, sizeof(comm));
                ev->runtime.pid = pid;
                ev->runtime.runtime_ns = (uint64_t) field_int(&f[TP_FIELD_RUNTIME], raw);
                return 0;
        case SCHED_EVENT_STAT_IOWAIT:
                memcpy(ev->iowait.comm, comm, sizeof(comm));
                ev->iowait.pid = pid;
                ev->iowait.delay_ns = (uint64_t) field_int(&f[TP_FIELD_DELAY], raw);
                return 0;
        case SCHED_EVENT_SWITCH:
        case SCHED_EVENT_CPU_FREQUENCY:
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                break;
        }
        return -EINVAL;
}

static int decode_cpu_frequency(const TpEvent *e, const uint8_t *raw, SchedEvent *ev) {
        const TpField *f = e->fields;

        ev->freq.khz = (uint32_t) field_int(&f[TP_FIELD_STATE], raw);
        ev->freq.cpu_id = (int32_t) field_int(&f[TP_FIELD_CPU_ID], raw);
        return 0;
}

SchedEventType sched_event_decode_type(const TpFormat *f, const void *raw, size_t size) {
        if (!f->common_type.present || size < (size_t) f->common_type.offset + f->common_type.size)
                return _SCHED_EVENT_TYPE_INVALID;
        return tp_format_type_from_id(f, (uint32_t) field_int(&f->common_type, raw));
}

int sched_event_decode(const TpFormat *f, const void *raw, size_t size, SchedEvent *ret) {
        SchedEventType type = sched_event_decode_type(f, raw, size);

        if (type < 0)
                return -EBADMSG;
        return sched_event_decode_as(f, type, raw, size, ret);
}

int sched_event_decode_as(const TpFormat *f, SchedEventType type, const void *raw, size_t size, SchedEvent *ret) {
        const uint8_t *p = raw;
        SchedEvent ev = { .cpu = -1, .type = type };
        const TpEvent *e;
        int r;

        if (type < 0 || type >= _SCHED_EVENT_TYPE_MAX || !f->events[type].present)
                return -EBADMSG;
        e = &f->events[ev.type];
        if (size < e->min_size)
                return -EBADMSG;

        if (ev.type == SCHED_EVENT_SWITCH) {
                r = decode_switch(e, p, size, &ev);
                ev.sw.prev_runnable = tp_format_prev_runnable(f, ev.sw.prev_state);
        } else if (ev.type == SCHED_EVENT_CPU_FREQUENCY)
                r = decode_cpu_frequency(e, p, &ev);
        else
                r = decode_task(e, p, size, &ev);
        if (r < 0)
                return r;
        *ret = ev;
        return 0;
}
