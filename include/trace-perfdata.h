/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A perf.data file (`perf record -e sched:sched_switch … -a`), read directly: no perf, no text. The layout is
 * tools/perf/Documentation/perf.data-file-format.txt (and tools/perf/util/header.c): a struct perf_file_header,
 * the attrs section (one struct perf_event_attr per event, with the sample ids of its per-CPU streams), the data
 * section (the records the rings held: PERF_RECORD_SAMPLE, _LOST, _FINISHED_ROUND, COMM, MMAP, …), then the
 * feature sections, of which HEADER_TRACING_DATA holds the recording kernel's event formats
 * (perf-tracing-data.h). A sample's PERF_SAMPLE_RAW payload is the tracepoint's record, decoded as the live
 * daemon decodes its own rings' (tp-decode.c) with those formats. Samples come in the order perf script prints
 * them (perf-round-queue.h), so replaying a perf.data gives what replaying `perf script --ns` of it gives.
 *
 * Read: what `perf record` writes on a machine of the host's byte order, in file mode and in pipe mode (`perf record
 * -o -`: a 16-byte header, then the attrs and the tracing data as PERF_RECORD_HEADER_ATTR and
 * PERF_RECORD_HEADER_TRACING_DATA records before the others). Refused with a reason: another byte order
 * ("2ELIFREP"), version 1 ("PERFFILE"), compressed records (`perf record -z`), the directory format (`perf record
 * --threads`), modelled events recorded without their time, CPU or raw data.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "sched-event.h"

/* The first bytes of a perf.data: the u64 magic "PERFILE2" (header.c, __perf_magic2) in the writer's order. */
#define PERF_DATA_MAGIC "PERFILE2"
#define PERF_DATA_MAGIC_LEN 8

typedef struct PerfData PerfData;

typedef struct PerfDataStats {
        uint64_t samples;         /* PERF_RECORD_SAMPLE records delivered */
        uint64_t lost_records;    /* PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES: places where events were lost */
        uint64_t lost_events;     /* the events they say were lost */
        uint64_t rounds;          /* PERF_RECORD_FINISHED_ROUND */
        uint64_t other;           /* other records (COMM, MMAP, …), not used */
} PerfDataStats;

/* Whether @head (the first @size bytes of a file) starts with a perf.data magic: PERFILE2 in either byte order, or
 * version 1's PERFFILE (refused by perf_data_open_*(), with the reason). */
bool perf_data_magic(const void *head, size_t size);

/*
 * Opens the perf.data on @fd (a regular file, mapped; @fd is not taken). Returns 0, or -EBADMSG/-ENOMEM/-errno with
 * *ret_error a malloc'd reason naming the part of the file and its byte offset ("data section, record at byte
 * 0x1c8: …"): a truncated or corrupt file, a form not read (above), the format of a modelled event the decoder
 * cannot read. -ESPIPE (with a reason) when @fd is not a regular file.
 */
int perf_data_open_fd(int fd, PerfData **ret, char **ret_error);

/* The same over @size bytes at @p, which the caller keeps alive and unchanged until perf_data_free(). */
int perf_data_open_memory(const void *p, size_t size, PerfData **ret, char **ret_error);

PerfData *perf_data_free(PerfData *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(PerfData *, perf_data_free);

/*
 * Called for each sample, in perf script's order: @ev the decoded event (time_ns, cpu, and the context pid from
 * PERF_SAMPLE_TID set), or NULL for a sample of an event not modelled; @index counts samples from 1 (the line
 * `perf script` prints it on); @lost is 0 (lost events are counted in PerfDataStats). A negative return stops
 * the iteration and is returned. The same signature as TraceDatHandler (trace-dat.h).
 */
typedef int (*PerfDataHandler)(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata);

/*
 * Runs @handler over every sample, from the start of the data (it may be called again). Returns 0, the handler's
 * error, -ENOMEM, or -EBADMSG with *ret_reason a malloc'd reason naming the record's byte offset and *ret_index
 * the samples delivered before it.
 */
int perf_data_iterate(PerfData *d, PerfDataHandler handler, void *userdata, uint64_t *ret_index, char **ret_reason);

/* What the last perf_data_iterate() counted. */
const PerfDataStats *perf_data_stats(const PerfData *d);
