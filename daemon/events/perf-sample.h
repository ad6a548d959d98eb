/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The records of a perf.data's data section as its attrs lay them out (include/uapi/linux/perf_event.h,
 * PERF_RECORD_SAMPLE and the sample_id trailer of sample_id_all): which attr a record belongs to (its sample id,
 * found where perf looks for it: tools/perf/util/evsel.c __evsel__calc_id_pos() and __evsel__calc_is_pos()), its
 * time, and a sample's fields up to PERF_SAMPLE_RAW, whose payload is a tracepoint record decoded with the
 * recording kernel's formats (tp-decode.h). Pure and bounds-checked: a record shorter than its layout says is an
 * error with a reason, never a read past it.
 */

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "tp-format.h"

#define PERF_SAMPLE_ATTRS_MAX 4096U

typedef struct PerfSampleAttr {
        uint32_t type;            /* PERF_TYPE_TRACEPOINT for a tracepoint, whose config is its id */
        uint64_t config;
        uint64_t sample_type;
        uint64_t read_format;
        bool sample_id_all;
        SchedEventType modelled;  /* the modelled event it records, or _SCHED_EVENT_TYPE_INVALID */
} PerfSampleAttr;

typedef struct PerfSampleId {
        uint64_t id;
        uint32_t attr;
} PerfSampleId;

typedef struct PerfSampleLayout {
        PerfSampleAttr *attrs;
        size_t n_attrs;
        PerfSampleId *ids;        /* sorted by id once finished */
        size_t n_ids, allocated_ids;
        TpFormat format;          /* the recording kernel's, from the tracing data */
        int id_pos;               /* a sample's id: u64 index after the header; -1: one attr, none needed */
        int is_pos;               /* another record's id: u64 index from its end (1 = last); -1: none */
} PerfSampleLayout;

typedef struct PerfSample {
        const PerfSampleAttr *attr;
        bool has_tid, has_time;
        uint32_t pid, tid;
        uint64_t time_ns;
        uint32_t cpu;
        const uint8_t *raw;       /* NULL without PERF_SAMPLE_RAW */
        uint32_t raw_size;
} PerfSample;

int perf_sample_layout_add_attr(PerfSampleLayout *l, const struct perf_event_attr *attr);
int perf_sample_layout_add_id(PerfSampleLayout *l, uint64_t id, size_t attr);
bool perf_sample_layout_has_tracepoints(const PerfSampleLayout *l);

/*
 * After the attrs, their ids and l->format: sorts the ids and checks what reading needs: every id names one attr,
 * the attrs agree where a record's id is (perf's evlist__valid_sample_type()), a modelled event's samples carry
 * their time, CPU and raw record. Returns 0, -ENOMEM, or -EBADMSG with *ret_error a malloc'd reason.
 */
int perf_sample_layout_finish(PerfSampleLayout *l, char **ret_error);
void perf_sample_layout_done(PerfSampleLayout *l);

/*
 * A record's time, as perf queues it (evlist__parse_sample_timestamp()): a sample's PERF_SAMPLE_TIME, another
 * record's from its sample_id trailer. Returns 1 with *@ret_ns, 0 for a record without one, or -EBADMSG with a
 * static *@ret_reason.
 */
int perf_sample_time(const PerfSampleLayout *l, const uint8_t *rec, size_t size, uint64_t *ret_ns,
                     const char **ret_reason);

/* A PERF_RECORD_SAMPLE of @size bytes: 0 and *@ret, or -EBADMSG with a static *@ret_reason. */
int perf_sample_parse(const PerfSampleLayout *l, const uint8_t *rec, size_t size, PerfSample *ret,
                      const char **ret_reason);

/*
 * The SchedEvent of a parsed sample: 1 and *@ret for a modelled event (time, CPU, and the context pid from
 * PERF_SAMPLE_TID's tid, as perf script prints it), 0 for another event, -EBADMSG with a static *@ret_reason for a
 * raw record that is not its attr's event or is shorter than its format.
 */
int perf_sample_decode(const PerfSampleLayout *l, const PerfSample *s, SchedEvent *ret, const char **ret_reason);
