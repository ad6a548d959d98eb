/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf-record.c: a PERF_RECORD_SAMPLE's fields (perf-record.h), in include/uapi/linux/perf_event.h's order. */

#include <linux/perf_event.h>
#include <string.h>

#include "perf-record.h"

bool perf_record_take(const uint8_t *rec, size_t size, size_t *off, void *dst, size_t n) {
        if (n > size - *off)
                return false;
        if (dst)
                memcpy(dst, rec + *off, n);
        *off += n;
        return true;
}

/* PERF_SAMPLE_READ: { nr, [enabled], [running], { value, [id], [lost] } × nr } with PERF_FORMAT_GROUP, else one. */
static bool skip_read(uint64_t format, const uint8_t *rec, size_t size, size_t *off) {
        size_t per = 8 * (1 + !!(format & PERF_FORMAT_ID) + !!(format & PERF_FORMAT_LOST));
        size_t head = 8 * (!!(format & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(format & PERF_FORMAT_TOTAL_TIME_RUNNING));
        uint64_t nr = 1;

        if ((format & PERF_FORMAT_GROUP) && !perf_record_take(rec, size, off, &nr, 8))
                return false;
        if (!perf_record_take(rec, size, off, NULL, head))
                return false;
        if (nr > (size - *off) / per)
                return false;
        *off += (size_t) nr * per;
        return true;
}

/* PERF_SAMPLE_CALLCHAIN: { nr, ips[nr] }. */
static bool skip_callchain(const uint8_t *rec, size_t size, size_t *off) {
        uint64_t nr;

        if (!perf_record_take(rec, size, off, &nr, 8) || nr > (size - *off) / 8)
                return false;
        *off += (size_t) nr * 8;
        return true;
}

bool perf_record_sample(uint64_t t, uint64_t read_format, const uint8_t *rec, size_t size, PerfSampleFields *ret) {
        size_t off = sizeof(struct perf_event_header);
        PerfSampleFields s = {};
        uint32_t cpu_res[2] = {};

        if (((t & PERF_SAMPLE_IDENTIFIER) && !perf_record_take(rec, size, &off, &s.id, 8)) ||
            ((t & PERF_SAMPLE_IP) && !perf_record_take(rec, size, &off, &s.ip, 8)) ||
            ((t & PERF_SAMPLE_TID) &&
             (!perf_record_take(rec, size, &off, &s.pid, 4) || !perf_record_take(rec, size, &off, &s.tid, 4))) ||
            ((t & PERF_SAMPLE_TIME) && !perf_record_take(rec, size, &off, &s.time_ns, 8)) ||
            ((t & PERF_SAMPLE_ADDR) && !perf_record_take(rec, size, &off, NULL, 8)) ||
            ((t & PERF_SAMPLE_ID) && !perf_record_take(rec, size, &off, &s.id, 8)) ||
            ((t & PERF_SAMPLE_STREAM_ID) && !perf_record_take(rec, size, &off, NULL, 8)) ||
            ((t & PERF_SAMPLE_CPU) && !perf_record_take(rec, size, &off, cpu_res, 8)) ||
            ((t & PERF_SAMPLE_PERIOD) && !perf_record_take(rec, size, &off, &s.period, 8)) ||
            ((t & PERF_SAMPLE_READ) && !skip_read(read_format, rec, size, &off)) ||
            ((t & PERF_SAMPLE_CALLCHAIN) && !skip_callchain(rec, size, &off)))
                return false;
        s.cpu = cpu_res[0];
        if (t & PERF_SAMPLE_RAW) {
                if (!perf_record_take(rec, size, &off, &s.raw_size, 4) || s.raw_size > size - off)
                        return false;
                s.raw = rec + off;
        }
        *ret = s;
        return true;
}
