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

/*
 * Whether a held sched_migrate_task moved @pid before the live item @before and after its last held switch-out: its
 * wake-up then attaches it where it lands (DO_ATTACH), an update the kernel makes and records a few µs after the
 * enqueue's clock, still before the traced wake-up; applied at that clock, the attach came before the kernel's
 * records of the decay that precede it (migrate, quiet: p90 47 -> 75). Such a wake-up is left where it was traced.
 */
static bool moved_since_switch_out(const ReplayQueue *q, size_t before, int32_t pid) {
        const ReplayQueueItem *base = q->items + q->head;

        for (size_t i = before; i > 0; i--) {
                const SchedEvent *e = &base[i - 1].ev;

                if (e->type == SCHED_EVENT_SWITCH && e->sw.prev_pid == pid)
                        return false;
                if (e->type == SCHED_EVENT_MIGRATE && e->migrate.pid == pid)
                        return true;
        }
        return false;
}

/*
 * The held items of the wake-up onto an idle CPU that @ev (the task's first sched_stat_runtime there) dates: the
 * switch-in idle → the task on @ev's CPU, only the task's own events on that CPU after it (no switch, no other
 * update_curr()) and nothing about the task elsewhere, and before it the task's sched_wakeup onto that CPU with
 * nothing on that CPU in between. Their indexes in *ret_wake and *ret_switch; false if the items are not so.
 */
static bool find_idle_wakeup(const ReplayQueue *q, const SchedEvent *ev, size_t *ret_wake, size_t *ret_switch) {
        const ReplayQueueItem *base = q->items + q->head;
        int32_t pid = ev->runtime.pid;
        size_t i = q->n, sw;

        /* back to the switch-in: everything after it on the CPU in the task's context, nothing about it elsewhere */
        for (;;) {
                const ReplayQueueItem *it;

                if (i == 0)
                        return false;
                it = &base[--i];
                if (it->ev.cpu == ev->cpu && it->ev.type == SCHED_EVENT_SWITCH && !it->inferred)
                        break;
                if (item_contradicts(it, ev->cpu, pid))
                        return false;
        }
        if (base[i].ev.sw.next_pid != pid || base[i].ev.sw.prev_pid != 0)
                return false;
        sw = i;
        /* back to the wake-up: nothing else on the CPU, nothing else about the task anywhere */
        while (i > 0) {
                const ReplayQueueItem *it = &base[--i];
                const SchedEvent *e = &it->ev;

                if (e->type == SCHED_EVENT_WAKEUP && e->wakeup.pid == pid) {
                        if (e->wakeup.target_cpu != ev->cpu || moved_since_switch_out(q, i, pid))
                                return false;
                        *ret_wake = i;
                        *ret_switch = sw;
                        return true;
                }
                if (it->inferred || e->cpu == ev->cpu || event_names_task(e, pid))
                        return false;
        }
        return false;
}

/* Moves the live item @from to just before the live item @to (@to <= @from). */
static void queue_move_back(ReplayQueue *q, size_t from, size_t to) {
        ReplayQueueItem *base = q->items + q->head, item = base[from];

        memmove(base + to + 1, base + to, (from - to) * sizeof(*base));
        base[to] = item;
}

int replay_queue_redate_wakeup(ReplayQueue *q, const SchedEvent *ev, uint64_t applied_ns) {
        const ReplayQueueItem *base = q->items + q->head;
        size_t wake, sw, at;
        uint64_t s;

        if (ev->type != SCHED_EVENT_RUNTIME || ev->runtime.pid <= 0 || !ev->has_context ||
            ev->context_pid != ev->runtime.pid || ev->runtime.runtime_ns == 0 || ev->runtime.runtime_ns > ev->time_ns)
                return 0;
        s = ev->time_ns - ev->runtime.runtime_ns;
        if (s <= applied_ns || !find_idle_wakeup(q, ev, &wake, &sw) || s >= base[wake].ev.time_ns)
                return 0;
        /* after every held event of the CPU before the wake-up, and after what was applied */
        at = wake;
        for (size_t i = wake; i > 0; i--) {
                const SchedEvent *e = &base[i - 1].ev;

                if (e->cpu == ev->cpu && e->time_ns >= s)
                        return 0;
                if (e->time_ns <= s)
                        break;
                at = i - 1;
        }
        q->items[q->head + wake].ev.time_ns = s;
        q->items[q->head + sw].ev.time_ns = s;
        queue_move_back(q, wake, at);
        queue_move_back(q, sw, at + 1);
        return 1;
}
