/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-events-drain.c: reading the rings: every CPU's records into one batch, each CPU's run put in time order
 * (nested samples), wake-ups recorded twice in a switch window dropped, the runs merged by time through a heap
 * and delivered to the handler; lost records reported first.
 */
#include <assert.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "alloc-util.h"
#include "events.h"
#include "log.h"
#include "perf-events-internal.h"
#include "perf-ring.h"
#include "time-util.h"
#include "tp-decode.h"
#include "tp-format.h"

/* Room for one more event in the batch. Called for every record drained: the check that there is room stays here,
 * inlined into the loop, and greedy_realloc() is called only when the batch is full. */
static int batch_reserve(PerfEvents *p) {
        SchedEvent *b;

        if (p->n_batch < p->batch_allocated)
                return 0;
        b = greedy_realloc(p->batch, &p->batch_allocated, p->n_batch + 1, sizeof(SchedEvent), BATCH_MIN);
        if (!b)
                return -ENOMEM;
        p->batch = b;
        return 0;
}

static bool same_wakeup(const SchedEvent *a, const SchedEvent *b) {
        return a->type == b->type && a->wakeup.pid == b->wakeup.pid && a->wakeup.prio == b->wakeup.prio &&
               a->wakeup.target_cpu == b->wakeup.target_cpu &&
               strncmp(a->wakeup.comm, b->wakeup.comm, TASK_COMM_LEN) == 0;
}

/*
 * Whether @ev is the second copy of a wake-up recorded twice in a switch window: the record just before it
 * in this ring is the same wake-up (see "Switch windows" in perf-events.c).
 */
static bool wakeup_duplicate(PerfCpu *c, const SchedEvent *ev) {
        bool dup;

        if (!perf_is_wakeup(ev->type)) {
                c->has_last_wakeup = false;
                return false;
        }
        dup = c->has_last_wakeup && ev->time_ns >= c->switch_from_ns && ev->time_ns <= c->switch_until_ns &&
              same_wakeup(&c->last_wakeup, ev);
        c->has_last_wakeup = !dup; /* a third copy is impossible: each generation's filters partition */
        c->last_wakeup = *ev;
        return dup;
}

/*
 * A ring is time-ordered but for nesting: a sample raised in an interrupt between another sample's
 * timestamp and its space reservation lands after it with a later time (perf_prepare_sample() then
 * perf_output_begin(), kernel/events/core.c). Insertion sort: stable, and linear on such input.
 */
static void run_sort(SchedEvent *ev, size_t n) {
        for (size_t i = 1; i < n; i++) {
                SchedEvent tmp;
                size_t j = i;

                if (ev[i - 1].time_ns <= ev[i].time_ns)
                        continue;
                tmp = ev[i];
                while (j > 0 && ev[j - 1].time_ns > tmp.time_ns) {
                        ev[j] = ev[j - 1];
                        j--;
                }
                ev[j] = tmp;
        }
}

/* Reads one ring to the end, decoding into the batch; its events become the sorted run [run, run_end). */
static int perf_cpu_collect(PerfEvents *p, PerfCpu *c) {
        PerfSampleFields s;
        int k = 0;

        c->run = p->n_batch;
        c->collected_ns = monotonic_ns();
        if (perf_ring_read_begin(c->ring) > 0)
                while ((k = batch_reserve(p)) >= 0 && (k = perf_ring_read_sample(c->ring, &s)) > 0) {
                        SchedEvent *ev = &p->batch[p->n_batch];

                        if (sched_event_decode(&p->format, s.raw, s.raw_size, ev) < 0) {
                                p->decode_errors++;
                                c->has_last_wakeup = false;
                                continue;
                        }
                        ev->time_ns = s.time_ns;
                        ev->cpu = (int) s.cpu;
                        ev->has_context = true;
                        ev->context_pid = (int32_t) s.tid;
                        if (wakeup_duplicate(c, ev)) {
                                p->stats.duplicates++;
                                continue;
                        }
                        p->n_batch++;
                }
        perf_ring_read_end(c->ring);
        c->run_end = p->n_batch;
        run_sort(p->batch + c->run, c->run_end - c->run);
        return MIN(k, 0);
}

/* Heap order: earlier head event first; on equal times the lower CPU, so the merge is stable. */
static bool head_before(const PerfEvents *p, const PerfCpu *a, const PerfCpu *b) {
        uint64_t ta = p->batch[a->run].time_ns, tb = p->batch[b->run].time_ns;

        return ta < tb || (ta == tb && a < b);
}

static void heap_sift_down(PerfEvents *p, size_t n, size_t i) {
        for (;;) {
                size_t l = 2 * i + 1, m = i;
                PerfCpu *tmp;

                if (l < n && head_before(p, p->heap[l], p->heap[m]))
                        m = l;
                if (l + 1 < n && head_before(p, p->heap[l + 1], p->heap[m]))
                        m = l + 1;
                if (m == i)
                        return;
                tmp = p->heap[i];
                p->heap[i] = p->heap[m];
                p->heap[m] = tmp;
                i = m;
        }
}

/* K-way merge of the per-CPU runs (each sorted) into the handler. */
static int perf_events_deliver(PerfEvents *p) {
        size_t n = 0;
        int r;

        for (size_t i = 0; i < p->n_cpus; i++)
                if (p->cpus[i].run < p->cpus[i].run_end)
                        p->heap[n++] = &p->cpus[i];
        for (size_t i = n / 2; i-- > 0;)
                heap_sift_down(p, n, i);

        while (n > 0) {
                PerfCpu *c = p->heap[0];

                r = p->handler(&p->batch[c->run++], p->userdata);
                if (r < 0)
                        return r;
                p->stats.samples++;
                if (c->run == c->run_end)
                        p->heap[0] = p->heap[--n];
                heap_sift_down(p, n, 0);
        }
        return 0;
}

/*
 * The kernel writes PERF_RECORD_LOST when space comes back after a full ring (perf_output_begin(),
 * kernel/events/ring_buffer.c), so a loss found in this drain lies before the events read with it: the
 * handler hears of it first.
 */
static int perf_events_report_lost(PerfEvents *p) {
        for (size_t i = 0; i < p->n_cpus; i++) {
                PerfCpu *c = &p->cpus[i];
                uint64_t lost = perf_ring_stats(c->ring)->lost, at_ns;
                int r;

                if (lost <= c->lost_reported)
                        continue;
                at_ns = c->run < c->run_end ? p->batch[c->run].time_ns : c->collected_ns;
                r = p->lost_handler ? p->lost_handler(c->cpu, lost - c->lost_reported, at_ns, p->userdata) : 0;
                c->lost_reported = lost;
                if (r < 0)
                        return r;
        }
        return 0;
}

void perf_events_set_lost_handler(PerfEvents *p, PerfEventsLostHandler handler) {
        p->lost_handler = handler;
}

void perf_events_refresh_stats(PerfEvents *p) {
        PerfRingStats sum = p->retired;

        for (size_t i = 0; i < p->n_cpus; i++) {
                const PerfRingStats *s = perf_ring_stats(p->cpus[i].ring);

                sum.lost += s->lost;
                sum.overruns += s->overruns;
                sum.malformed += s->malformed;
                sum.other += s->other;
        }
        p->stats.lost = sum.lost;
        p->stats.overruns = sum.overruns;
        p->stats.malformed = sum.malformed + p->decode_errors;
        p->stats.other_records = sum.other;
}

/* Every CPU's ring into the batch (each CPU's run in time order); 0 or the first error. */
int perf_rings_collect(PerfEvents *p) {
        int r = 0;

        p->n_batch = 0;
        for (size_t i = 0; i < p->n_cpus && r >= 0; i++)
                r = perf_cpu_collect(p, &p->cpus[i]);
        return r;
}

/* The lost records reported, then the batch delivered in time order; the handler's error, if any. */
int perf_rings_deliver(PerfEvents *p) {
        int r;

        r = perf_events_report_lost(p);
        if (r < 0)
                return r;
        return perf_events_deliver(p);
}
