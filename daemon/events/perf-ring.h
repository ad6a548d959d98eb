/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * One perf ring buffer: the struct perf_event_mmap_page control page followed by 2^n bytes of data, as
 * mmapped from a perf event fd, or the same layout in ordinary memory (a fake kernel in tests). The reader
 * follows libperf (tools/lib/perf/mmap.c) and the barrier contract of tools/include/linux/ring_buffer.h:
 *
 *     n = perf_ring_read_begin(r);                  snapshot data_head (load-acquire)
 *     while ((k = perf_ring_read_sample(r, &s)) > 0) use s (its raw pointer is valid until the next call)
 *     perf_ring_read_end(r);                        hand the space back (store-release of data_tail)
 *
 * Records straddling the end of the ring are copied into an 8-byte aligned buffer so a sample is always
 * contiguous; PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES are counted; other record types are skipped.
 */

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "perf-record.h"

/*
 * The sample_type bits the parser understands: fixed-size fields only (include/uapi/linux/perf_event.h,
 * PERF_RECORD_SAMPLE layout). PERF_SAMPLE_READ, CALLCHAIN and later variable-size fields are refused.
 */
#define PERF_RING_SAMPLE_TYPES                                                                          \
        (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |  \
         PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)


typedef struct PerfRingStats {
        uint64_t samples;         /* PERF_RECORD_SAMPLE records returned */
        uint64_t lost;            /* samples the kernel dropped (PERF_RECORD_LOST[_SAMPLES] .lost) */
        uint64_t overruns;        /* reads that found head more than the ring size past tail: all skipped */
        uint64_t malformed;       /* samples shorter than their sample_type; corrupt headers (read skipped) */
        uint64_t other;           /* other record types (THROTTLE, …), skipped */
} PerfRingStats;

typedef struct PerfRing PerfRing;

/*
 * A ring over memory the caller owns: @page, then page->data_size bytes (a power of two, at least 8) at
 * page->data_offset. Reading starts at page->data_tail. Returns 0, -EINVAL (bad layout), -EOPNOTSUPP
 * (@sample_type has bits outside PERF_RING_SAMPLE_TYPES) or -ENOMEM.
 */
int perf_ring_new(struct perf_event_mmap_page *page, uint64_t sample_type, PerfRing **ret);

/* mmaps 1 + @data_pages pages (a power of two) of perf event @fd and owns the mapping (fd not kept). */
int perf_ring_mmap(int fd, unsigned data_pages, uint64_t sample_type, PerfRing **ret);

PerfRing *perf_ring_free(PerfRing *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(PerfRing *, perf_ring_free);

/*
 * Starts a read: snapshots data_head. Returns the bytes available. A head more than the ring size ahead
 * of the tail (an overrun: the data was overwritten under us) is counted; the reader skips to head and
 * returns 0.
 */
size_t perf_ring_read_begin(PerfRing *r);

/* The next sample of the current read: 1 and *ret filled, 0 when the read is exhausted, -ENOMEM. */
int perf_ring_read_sample(PerfRing *r, PerfSampleFields *ret);

/* Ends the read: everything returned so far is handed back to the kernel. */
void perf_ring_read_end(PerfRing *r);

size_t perf_ring_data_size(const PerfRing *r);
const PerfRingStats *perf_ring_stats(const PerfRing *r);
