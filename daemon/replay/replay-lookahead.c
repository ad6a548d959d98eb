/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay-lookahead.c: the events replay holds back, and the switch-ins a trace lost inferred from them
 * (replay-lookahead.h says why and when).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc-util.h"
#include "macro.h"
#include "replay-lookahead.h"

#define PRIO_NORMAL 120           /* a nice-0 CFS task's prio (include/linux/sched/prio.h: DEFAULT_PRIO) */

void replay_queue_done(ReplayQueue *q) {
        free(q->items);
        *q = (ReplayQueue) {};
}

size_t replay_queue_size(const ReplayQueue *q) {
        return q->n;
}

/* Room for one more item at the end: the live items moved to the front, and the array grown if still full. */
static int queue_reserve(ReplayQueue *q) {
        ReplayQueueItem *items;

        if (q->head + q->n < q->cap)
                return 0;
        if (q->head > 0) {
                memmove(q->items, q->items + q->head, q->n * sizeof(*q->items));
                q->head = 0;
        }
        items = greedy_realloc(q->items, &q->cap, q->n + 1, sizeof(*items), 64);
        if (!items)
                return -ENOMEM;
        q->items = items;
        return 0;
}

/* Inserts @item before the live item @at (0 .. n: n appends). */
static int queue_insert(ReplayQueue *q, size_t at, const ReplayQueueItem *item) {
        ReplayQueueItem *base;
        int r;

        r = queue_reserve(q);
        if (r < 0)
                return r;
        base = q->items + q->head;
        memmove(base + at + 1, base + at, (q->n - at) * sizeof(*base));
        base[at] = *item;
        q->n++;
        return 0;
}

int replay_queue_push(ReplayQueue *q, const SchedEvent *ev) {
        ReplayQueueItem item = { .ev = *ev };

        return queue_insert(q, q->n, &item);
}

bool replay_queue_pop(ReplayQueue *q, uint64_t until_ns, ReplayQueueItem *ret) {
        if (q->n == 0 || q->items[q->head].ev.time_ns > until_ns)
                return false;
        *ret = q->items[q->head];
        q->head++;
        q->n--;
        if (q->n == 0)
                q->head = 0;
        return true;
}

/* Whether @ev is about task @pid: woken, moved, exiting, or switched in or out (on any CPU). */
static bool event_names_task(const SchedEvent *ev, int32_t pid) {
        if (ev->type == SCHED_EVENT_SWITCH)
                return ev->sw.prev_pid == pid || ev->sw.next_pid == pid;
        return sched_event_task_pid(ev) == pid;
}

/*
 * Whether the held item @it contradicts @pid running on @cpu without a break from the switch-in until the report:
 * on that CPU nothing but @pid may be current (each event names its CPU's current task, its context), no switch
 * and no other update_curr() (it would have reset exec_start, and the report's runtime would be shorter); and
 * nothing may happen to @pid elsewhere.
 */
static bool item_contradicts(const ReplayQueueItem *it, int cpu, int32_t pid) {
        const SchedEvent *e = &it->ev;

        if (e->cpu == cpu) {
                if (it->inferred || e->type == SCHED_EVENT_SWITCH || e->type == SCHED_EVENT_RUNTIME)
                        return true;
                if (e->has_context && e->context_pid != pid)
                        return true;
                return false;
        }
        return event_names_task(e, pid);
}

/* The candidate: sched_switch idle → @rt's task on its CPU at @at_ns, in the idle task's context. */
static void switch_in_event(const SchedEvent *rt, uint64_t at_ns, SchedEvent *ret) {
        *ret = (SchedEvent) {
                .type = SCHED_EVENT_SWITCH,
                .time_ns = at_ns,
                .cpu = rt->cpu,
                .has_context = true,
                .context_pid = 0,
        };
        (void) snprintf(ret->sw.prev_comm, sizeof(ret->sw.prev_comm), "swapper/%d", rt->cpu);
        ret->sw.prev_prio = PRIO_NORMAL;
        ret->sw.prev_runnable = true;             /* the idle task's prev_state is R */
        memcpy(ret->sw.next_comm, rt->runtime.comm, sizeof(ret->sw.next_comm));
        ret->sw.next_pid = rt->runtime.pid;
        ret->sw.next_prio = PRIO_NORMAL;
}

int replay_queue_infer_switch_in(ReplayQueue *q, const SchedEvent *ev, uint64_t window_ns, uint64_t applied_ns) {
        const ReplayQueueItem *base = q->items + q->head;
        ReplayQueueItem item = { .inferred = true };
        int32_t pid = ev->runtime.pid;
        size_t at = q->n;
        uint64_t s;

        if (ev->type != SCHED_EVENT_RUNTIME || pid <= 0 || !ev->has_context || ev->context_pid != pid)
                return 0;
        if (ev->runtime.runtime_ns == 0 || ev->runtime.runtime_ns > window_ns || ev->runtime.runtime_ns > ev->time_ns)
                return 0;
        s = ev->time_ns - ev->runtime.runtime_ns;
        if (s <= applied_ns)
                return 0;
        /* Every held event from the switch-in on must agree; the candidate goes before the first later one. */
        for (size_t i = q->n; i > 0; i--) {
                const ReplayQueueItem *it = &base[i - 1];

                if (it->ev.time_ns < s)
                        break;
                if (item_contradicts(it, ev->cpu, pid))
                        return 0;
                if (it->ev.time_ns > s)
                        at = i - 1;
        }
        switch_in_event(ev, s, &item.ev);
        return queue_insert(q, at, &item) < 0 ? -ENOMEM : 1;
}
