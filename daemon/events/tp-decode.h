/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * One raw tracepoint record (what perf's PERF_SAMPLE_RAW carries: the trace entry starting with common_type)
 * → SchedEvent, with the layouts tp-format.c read from tracefs (daemon/events/tp-format.h). The hot path of the
 * live daemon: pure, no I/O, reads only a TpFormat. The record layouts are the kernel's
 * (include/trace/events/sched.h and power.h, TP_STRUCT__entry), whose offsets the TpFormat holds.
 */

#include <stddef.h>

#include "events.h"
#include "tp-format.h"

/*
 * Decodes one raw tracepoint record of @size bytes. The event type comes from common_type. Bounds-checked: a
 * record shorter than the fields it needs, a __data_loc pointing outside it, or an unknown common_type give
 * -EBADMSG and never a read out of bounds. time_ns and cpu are not in the record: they are set to 0 and -1,
 * the caller fills them from the perf sample. @ret is only written on success.
 */
int sched_event_decode(const TpFormat *f, const void *raw, size_t size, SchedEvent *ret);

/* The modelled event a raw record is (its common_type), or _SCHED_EVENT_TYPE_INVALID for another or a short one. */
SchedEventType sched_event_decode_type(const TpFormat *f, const void *raw, size_t size);

/* sched_event_decode() of a record whose type sched_event_decode_type() gave (@type): the lookup done once. */
int sched_event_decode_as(const TpFormat *f, SchedEventType type, const void *raw, size_t size, SchedEvent *ret);
