/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * perf's order of a perf.data's records, as `perf script` delivers them (tools/perf/util/ordered-events.c): perf
 * record writes each CPU's ring in turn, so records are in time order per CPU only; it writes a
 * PERF_RECORD_FINISHED_ROUND after each pass over the rings. A reader queues every timed record; at each round
 * it delivers, in time order, those not later than the latest time queued before the *previous* round (a record
 * read in this round may still be older than one of the last round, never older than the round before), and at
 * the end everything. Ties keep the file's order. A record written while its ring was being read can still come
 * later than that (a round late): it is delivered at the next flush, out of order, as perf script prints it.
 *
 * Doing exactly what perf does makes `schedfreqd replay perf.data` see the events in the order
 * `perf script | schedfreqd replay -` sees them. Memory: the records of about two rounds (16 bytes each), at most
 * PERF_ROUND_QUEUE_MAX, beyond which half the queued time span is delivered (perf's OE_FLUSH__HALF, which it does
 * when its own allocation limit is reached).
 */

#include <stddef.h>
#include <stdint.h>

#include "macro.h"

#define PERF_ROUND_QUEUE_MAX (4U * 1024 * 1024)

/* Delivers the record at @offset (the caller's handle: its position in the file). A negative return stops. */
typedef int (*PerfRoundDeliver)(uint64_t offset, void *userdata);

typedef struct PerfRoundEntry {
        uint64_t time_ns;
        uint64_t offset;          /* increasing in the order records were queued: the tie-break */
} PerfRoundEntry;

typedef struct PerfRoundQueue {
        PerfRoundEntry *entries, *scratch;
        size_t n, allocated;
        size_t sorted;            /* entries[0..sorted) are in order */
        uint64_t max_time_ns;     /* the latest time queued since the queue was last empty (perf's max_timestamp) */
        uint64_t last_time_ns;    /* the time of the record queued last */
        uint64_t next_flush_ns;   /* what the next round delivers up to (perf's next_flush; 0: nothing) */
        PerfRoundDeliver deliver;
        void *userdata;
} PerfRoundQueue;

void perf_round_queue_init(PerfRoundQueue *q, PerfRoundDeliver deliver, void *userdata);
void perf_round_queue_done(PerfRoundQueue *q);

/* Queues a record (@offset larger than every earlier one's). Returns 0, -ENOMEM, or a delivery's error. */
int perf_round_queue_push(PerfRoundQueue *q, uint64_t time_ns, uint64_t offset);

/* A PERF_RECORD_FINISHED_ROUND: delivers what perf delivers there. Returns 0 or a delivery's error. */
int perf_round_queue_round(PerfRoundQueue *q);

/* The end of the data: delivers everything still queued, in order. */
int perf_round_queue_finish(PerfRoundQueue *q);
