/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-round-queue.c: perf's ordered_events in arrays (daemon/events/perf-round-queue.h). perf keeps a sorted list
 * and inserts each record after every queued one not later than it (queue_event()), then delivers a sorted prefix
 * at each flush (do_flush()); here records are appended and sorted only before a flush, by (time, offset): the
 * same order. A round's records come as one ascending run per CPU ring, so a natural merge sort (merging the
 * runs it finds) costs O(n log runs), about two passes with two CPUs.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "perf-round-queue.h"

void perf_round_queue_init(PerfRoundQueue *q, PerfRoundDeliver deliver, void *userdata) {
        *q = (PerfRoundQueue) { .deliver = deliver, .userdata = userdata };
}

void perf_round_queue_done(PerfRoundQueue *q) {
        free(q->entries);
        free(q->scratch);
        *q = (PerfRoundQueue) {};
}

static bool entry_before(const PerfRoundEntry *a, const PerfRoundEntry *b) {
        return a->time_ns < b->time_ns || (a->time_ns == b->time_ns && a->offset < b->offset);
}

/* The end of the ascending run that starts at @i. */
static size_t run_end(const PerfRoundEntry *e, size_t i, size_t n) {
        while (i + 1 < n && !entry_before(&e[i + 1], &e[i]))
                i++;
        return i + 1;
}

/* Merges e[a..b) and e[b..c) into out[a..c). */
static void merge(const PerfRoundEntry *e, size_t a, size_t b, size_t c, PerfRoundEntry *out) {
        size_t i = a, j = b, k = a;

        while (i < b && j < c)
                out[k++] = entry_before(&e[j], &e[i]) ? e[j++] : e[i++];
        memcpy(out + k, e + i, (b - i) * sizeof(*e));
        k += b - i;
        memcpy(out + k, e + j, (c - j) * sizeof(*e));
}

/* Sorts the queue: bottom-up merges of neighbouring runs until one is left. */
static void queue_sort(PerfRoundQueue *q) {
        while (q->sorted < q->n) {
                size_t i = 0;

                while (i < q->n) {
                        size_t mid = run_end(q->entries, i, q->n), end = mid < q->n ? run_end(q->entries, mid, q->n) : mid;

                        merge(q->entries, i, mid, end, q->scratch);
                        i = end;
                }
                PerfRoundEntry *t = q->entries;
                q->entries = q->scratch;
                q->scratch = t;
                q->sorted = run_end(q->entries, 0, q->n);
        }
}

/* Sorts, then delivers every record not later than @limit_ns (do_flush()). */
static int queue_deliver(PerfRoundQueue *q, uint64_t limit_ns) {
        size_t i = 0;
        int r = 0;

        queue_sort(q);
        for (; i < q->n && q->entries[i].time_ns <= limit_ns; i++) {
                r = q->deliver(q->entries[i].offset, q->userdata);
                if (r < 0) {
                        i++;
                        break;
                }
        }
        memmove(q->entries, q->entries + i, (q->n - i) * sizeof(*q->entries));
        q->n -= i;
        q->sorted = q->n;
        return r < 0 ? r : 0;
}

/* OE_FLUSH__HALF: up to the middle between the earliest queued time and the time of the last record queued. */
static int queue_flush_half(PerfRoundQueue *q) {
        uint64_t first_ns;

        queue_sort(q);
        first_ns = q->entries[0].time_ns;
        q->next_flush_ns = first_ns + (q->last_time_ns - MIN(first_ns, q->last_time_ns)) / 2;
        return queue_deliver(q, q->next_flush_ns);
}

static int queue_grow(PerfRoundQueue *q) {
        size_t n = q->allocated ? q->allocated * 2 : 4096;
        PerfRoundEntry *e, *s;

        e = realloc(q->entries, n * sizeof(*e));
        if (!e)
                return -ENOMEM;
        q->entries = e;
        s = realloc(q->scratch, n * sizeof(*s));
        if (!s)
                return -ENOMEM;
        q->scratch = s;
        q->allocated = n;
        return 0;
}

int perf_round_queue_push(PerfRoundQueue *q, uint64_t time_ns, uint64_t offset) {
        int r;

        if (q->n >= PERF_ROUND_QUEUE_MAX) {
                r = queue_flush_half(q);
                if (r < 0)
                        return r;
        }
        if (q->n == q->allocated) {
                r = queue_grow(q);
                if (r < 0)
                        return r;
        }
        /* queue_event(): the first record of an empty queue sets max_timestamp, a later one only raises it. */
        q->max_time_ns = q->n == 0 ? time_ns : MAX(q->max_time_ns, time_ns);
        q->last_time_ns = time_ns;
        if (q->sorted == q->n && (q->n == 0 || !entry_before(&(PerfRoundEntry) { time_ns, offset }, &q->entries[q->n - 1])))
                q->sorted++;
        q->entries[q->n++] = (PerfRoundEntry) { .time_ns = time_ns, .offset = offset };
        return 0;
}

int perf_round_queue_round(PerfRoundQueue *q) {
        int r = 0;

        /* __ordered_events__flush(): an empty queue changes nothing; a limit of 0 delivers nothing. */
        if (q->n == 0)
                return 0;
        if (q->next_flush_ns != 0)
                r = queue_deliver(q, q->next_flush_ns);
        if (r < 0)
                return r;
        q->next_flush_ns = q->max_time_ns;
        return 0;
}

int perf_round_queue_finish(PerfRoundQueue *q) {
        if (q->n == 0)
                return 0;
        return queue_deliver(q, UINT64_MAX);
}
