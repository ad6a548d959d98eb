/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * perf-record.h: one PERF_RECORD_SAMPLE's fields, read in the order of include/uapi/linux/perf_event.h, for the
 * live rings (perf-ring.c) and a perf.data file (perf-sample.c) alike: one decoder, bounds-checked and pure.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct PerfSampleFields {
        uint64_t id;              /* PERF_SAMPLE_IDENTIFIER or PERF_SAMPLE_ID */
        uint64_t ip;
        uint32_t pid, tid;
        uint64_t time_ns;         /* perf_event_attr.clockid's clock when use_clockid is set */
        uint32_t cpu;
        uint64_t period;
        const uint8_t *raw;       /* PERF_SAMPLE_RAW bytes (NULL without); in the record */
        uint32_t raw_size;        /* includes the kernel's padding to 8 bytes */
} PerfSampleFields;

/* Takes @n bytes at *@off of a record of @size bytes into @dst (NULL: skipped); false if the record ends first. */
bool perf_record_take(const uint8_t *rec, size_t size, size_t *off, void *dst, size_t n);

/*
 * The fields of the sample record @rec (@size bytes, its perf_event_header first) whose attr has @sample_type
 * and @read_format, up to PERF_SAMPLE_RAW (PERF_SAMPLE_READ and CALLCHAIN skipped; what follows RAW is not
 * read). False if the record is shorter than its sample_type says.
 */
bool perf_record_sample(uint64_t sample_type, uint64_t read_format, const uint8_t *rec, size_t size,
                        PerfSampleFields *ret);
