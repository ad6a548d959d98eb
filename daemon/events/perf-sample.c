/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-sample.c: a perf.data record's attr, time and sample fields (daemon/events/perf-sample.h). The sample layout is
 * include/uapi/linux/perf_event.h's PERF_RECORD_SAMPLE, in its order: IDENTIFIER, IP, TID, TIME, ADDR, ID,
 * STREAM_ID, CPU, PERIOD, READ, CALLCHAIN, RAW (what follows RAW is not needed); the sample_id trailer of other
 * records is { TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER }, read from the end as tools/perf/util/evsel.c
 * perf_evsel__parse_id_sample() does.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc-util.h"
#include "macro.h"
#include "perf-record.h"
#include "perf-sample.h"
#include "tp-decode.h"

int perf_sample_layout_add_attr(PerfSampleLayout *l, const struct perf_event_attr *attr) {
        PerfSampleAttr *a;

        if (l->n_attrs >= PERF_SAMPLE_ATTRS_MAX)
                return -EBADMSG;
        a = realloc(l->attrs, (l->n_attrs + 1) * sizeof(*a));
        if (!a)
                return -ENOMEM;
        l->attrs = a;
        l->attrs[l->n_attrs++] = (PerfSampleAttr) {
                .type = attr->type,
                .config = attr->config,
                .sample_type = attr->sample_type,
                .read_format = attr->read_format,
                .sample_id_all = attr->sample_id_all,
                .modelled = _SCHED_EVENT_TYPE_INVALID,
        };
        return 0;
}

int perf_sample_layout_add_id(PerfSampleLayout *l, uint64_t id, size_t attr) {
        PerfSampleId *ids = greedy_realloc(l->ids, &l->allocated_ids, l->n_ids + 1, sizeof(*ids), 64);

        if (!ids)
                return -ENOMEM;
        l->ids = ids;
        l->ids[l->n_ids++] = (PerfSampleId) { .id = id, .attr = (uint32_t) attr };
        return 0;
}

bool perf_sample_layout_has_tracepoints(const PerfSampleLayout *l) {
        for (size_t i = 0; i < l->n_attrs; i++)
                if (l->attrs[i].type == PERF_TYPE_TRACEPOINT)
                        return true;
        return false;
}

void perf_sample_layout_done(PerfSampleLayout *l) {
        free(l->attrs);
        free(l->ids);
        *l = (PerfSampleLayout) {};
}

static int id_compare(const void *a, const void *b) {
        const PerfSampleId *x = a, *y = b;

        return x->id < y->id ? -1 : x->id > y->id;
}

/* __evsel__calc_id_pos(): where a sample's id is, in u64s after the header, or -1 without one. */
static int calc_id_pos(uint64_t type) {
        if (type & PERF_SAMPLE_IDENTIFIER)
                return 0;
        if (!(type & PERF_SAMPLE_ID))
                return -1;
        return !!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID) + !!(type & PERF_SAMPLE_TIME) +
               !!(type & PERF_SAMPLE_ADDR);
}

/* __evsel__calc_is_pos(): where another record's id is, in u64s from its end, or -1 without one. */
static int calc_is_pos(uint64_t type) {
        if (type & PERF_SAMPLE_IDENTIFIER)
                return 1;
        if (!(type & PERF_SAMPLE_ID))
                return -1;
        return 1 + !!(type & PERF_SAMPLE_CPU) + !!(type & PERF_SAMPLE_STREAM_ID);
}

_printf_(2, 3) static int layout_error(char **ret_error, const char *format, ...) {
        va_list ap;
        int k;

        if (!ret_error)
                return -EBADMSG;
        va_start(ap, format);
        k = vasprintf(ret_error, format, ap);
        va_end(ap);
        if (k < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return -EBADMSG;
}

/* The sorted ids: each names one attr. */
static int check_ids(PerfSampleLayout *l, char **ret_error) {
        if (l->n_ids > 1) /* none: l->ids is NULL, which qsort() must not be given */
                qsort(l->ids, l->n_ids, sizeof(*l->ids), id_compare);
        for (size_t i = 1; i < l->n_ids; i++)
                if (l->ids[i].id == l->ids[i - 1].id && l->ids[i].attr != l->ids[i - 1].attr)
                        return layout_error(ret_error, "attrs %" PRIu32 " and %" PRIu32 ": the same sample id %" PRIu64,
                                            l->ids[i - 1].attr, l->ids[i].attr, l->ids[i].id);
        return 0;
}

/* evlist__valid_sample_type(): with several attrs, every record must say which it is, in the same place. */
static int check_id_positions(PerfSampleLayout *l, char **ret_error) {
        l->id_pos = l->is_pos = -1;
        if (l->n_attrs == 1)
                return 0;
        l->id_pos = calc_id_pos(l->attrs[0].sample_type);
        l->is_pos = calc_is_pos(l->attrs[0].sample_type);
        if (l->id_pos < 0)
                return layout_error(ret_error, "attr 0: %zu events whose samples carry no id (PERF_SAMPLE_ID or "
                                    "IDENTIFIER): which event a sample is cannot be told", l->n_attrs);
        for (size_t i = 1; i < l->n_attrs; i++)
                if (calc_id_pos(l->attrs[i].sample_type) != l->id_pos ||
                    calc_is_pos(l->attrs[i].sample_type) != l->is_pos)
                        return layout_error(ret_error, "attr %zu: its samples carry their id elsewhere than attr 0's "
                                            "(sample_type 0x%" PRIx64 " and 0x%" PRIx64 ")", i,
                                            l->attrs[i].sample_type, l->attrs[0].sample_type);
        return 0;
}

/* Each tracepoint attr's modelled event (its config is the event's id); one must carry TIME, CPU and RAW. */
static int check_modelled(PerfSampleLayout *l, char **ret_error) {
        const uint64_t needed = PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;

        for (size_t i = 0; i < l->n_attrs; i++) {
                PerfSampleAttr *a = &l->attrs[i];

                if (a->type != PERF_TYPE_TRACEPOINT || a->config > UINT32_MAX)
                        continue;
                a->modelled = tp_format_type_from_id(&l->format, (uint32_t) a->config);
                if (a->modelled >= 0 && (a->sample_type & needed) != needed)
                        return layout_error(ret_error, "attr %zu (%s:%s): its samples lack their %s: record with "
                                            "`perf record -a` (which samples time, CPU and raw data)", i,
                                            sched_event_type_subsystem(a->modelled),
                                            sched_event_type_to_string(a->modelled),
                                            !(a->sample_type & PERF_SAMPLE_TIME) ? "time (PERF_SAMPLE_TIME)" :
                                            !(a->sample_type & PERF_SAMPLE_CPU) ? "CPU (PERF_SAMPLE_CPU)" :
                                            "raw record (PERF_SAMPLE_RAW)");
        }
        return 0;
}

int perf_sample_layout_finish(PerfSampleLayout *l, char **ret_error) {
        int r;

        r = check_ids(l, ret_error);
        if (r >= 0)
                r = check_id_positions(l, ret_error);
        if (r >= 0)
                r = check_modelled(l, ret_error);
        return r;
}

/* The attr of sample id @id (perf's "synthesized events have an id of zero": the first attr), or NULL. */
static const PerfSampleAttr *attr_of_id(const PerfSampleLayout *l, uint64_t id) {
        const PerfSampleId key = { .id = id }, *found;

        if (id == 0)
                return &l->attrs[0];
        if (l->n_ids == 0)
                return NULL;
        found = bsearch(&key, l->ids, l->n_ids, sizeof(*l->ids), id_compare);
        return found ? &l->attrs[found->attr] : NULL;
}

/* The attr of a record (evlist__event2evsel()), or NULL with *@ret_reason. */
static const PerfSampleAttr *record_attr(const PerfSampleLayout *l, const uint8_t *rec, size_t size,
                                         const char **ret_reason) {
        const PerfSampleAttr *a;
        uint32_t type;
        size_t at;
        uint64_t id;

        if (l->n_attrs == 1)
                return &l->attrs[0];
        memcpy(&type, rec, sizeof(type)); /* perf_event_header.type; a record need not be aligned */
        if (type != PERF_RECORD_SAMPLE && !l->attrs[0].sample_id_all)
                return &l->attrs[0];
        if (type == PERF_RECORD_SAMPLE)
                at = sizeof(struct perf_event_header) + 8 * (size_t) l->id_pos;
        else if (l->is_pos > 0 && size >= sizeof(struct perf_event_header) + 8 * (size_t) l->is_pos)
                at = size - 8 * (size_t) l->is_pos;
        else
                at = SIZE_MAX;
        if (at == SIZE_MAX || size < at + 8) {
                *ret_reason = "shorter than the sample id its attrs say it carries";
                return NULL;
        }
        memcpy(&id, rec + at, 8);
        a = attr_of_id(l, id);
        if (!a)
                *ret_reason = "a sample id none of the file's attrs has";
        return a;
}

/* A record's sample_id trailer time, read backwards: IDENTIFIER, CPU, STREAM_ID, ID, then TIME. */
static int trailer_time(const PerfSampleAttr *a, const uint8_t *rec, size_t size, uint64_t *ret_ns,
                        const char **ret_reason) {
        uint64_t t = a->sample_type;
        size_t back;

        if (!a->sample_id_all || !(t & PERF_SAMPLE_TIME))
                return 0;
        back = 8 * (1 + !!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID) +
                    !!(t & PERF_SAMPLE_ID));
        if (size < sizeof(struct perf_event_header) + back) {
                *ret_reason = "shorter than its sample_id trailer";
                return -EBADMSG;
        }
        memcpy(ret_ns, rec + size - back, 8);
        return 1;
}

/* The fields up to PERF_SAMPLE_RAW, through the decoder the live rings use too (perf-record.c). */
static bool parse_fields(uint64_t t, uint64_t read_format, const uint8_t *rec, size_t size, PerfSample *s) {
        PerfSampleFields f;

        if (!perf_record_sample(t, read_format, rec, size, &f))
                return false;
        s->has_tid = t & PERF_SAMPLE_TID;
        s->has_time = t & PERF_SAMPLE_TIME;
        s->pid = f.pid;
        s->tid = f.tid;
        s->time_ns = f.time_ns;
        s->cpu = f.cpu;
        s->raw = f.raw;
        s->raw_size = f.raw_size;
        return true;
}

int perf_sample_parse(const PerfSampleLayout *l, const uint8_t *rec, size_t size, PerfSample *ret,
                      const char **ret_reason) {
        PerfSample s = {};

        s.attr = record_attr(l, rec, size, ret_reason);
        if (!s.attr)
                return -EBADMSG;
        if (!parse_fields(s.attr->sample_type, s.attr->read_format, rec, size, &s)) {
                *ret_reason = "a sample shorter than its attr's sample_type says";
                return -EBADMSG;
        }
        *ret = s;
        return 0;
}

int perf_sample_time(const PerfSampleLayout *l, const uint8_t *rec, size_t size, uint64_t *ret_ns,
                     const char **ret_reason) {
        const PerfSampleAttr *a;
        PerfSample s;
        uint32_t type;
        int r;

        memcpy(&type, rec, sizeof(type)); /* perf_event_header.type; a record need not be aligned */
        if (type == PERF_RECORD_SAMPLE) {
                r = perf_sample_parse(l, rec, size, &s, ret_reason);
                if (r < 0)
                        return r;
                *ret_ns = s.time_ns;
                return s.has_time;
        }
        a = record_attr(l, rec, size, ret_reason);
        if (!a)
                return -EBADMSG;
        return trailer_time(a, rec, size, ret_ns, ret_reason);
}

int perf_sample_decode(const PerfSampleLayout *l, const PerfSample *s, SchedEvent *ret, const char **ret_reason) {
        SchedEvent ev;

        if (s->attr->modelled < 0)
                return 0;
        /* perf_sample_layout_finish() made sure a modelled event's samples carry RAW, TIME and CPU. */
        if (sched_event_decode_type(&l->format, s->raw, s->raw_size) != s->attr->modelled) {
                *ret_reason = "a raw record of another event than its attr's (attr.config)";
                return -EBADMSG;
        }
        if (sched_event_decode(&l->format, s->raw, s->raw_size, &ev) < 0) {
                *ret_reason = "a raw record shorter than its event's format, or with a string outside it";
                return -EBADMSG;
        }
        ev.time_ns = s->time_ns;
        ev.cpu = (int) MIN(s->cpu, (uint32_t) INT32_MAX);
        ev.has_context = s->has_tid;
        ev.context_pid = s->has_tid ? (int32_t) s->tid : -1;
        *ret = ev;
        return 1;
}
