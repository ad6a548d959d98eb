/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * replay-lookahead.c: the switch-ins a trace lost, put back by looking ahead (replay only: the live daemon cannot
 * look back). docs/platform.md: on some kernels (this project's VMs) a task woken on an idle CPU has neither its
 * wake-up nor its switch-in recorded, so the model learns that it runs only at its first sched_stat_runtime (the
 * next tick, or its switch-out) while the kernel's PELT counted it running from the switch-in. That first
 * sched_stat_runtime says when the switch-in was: update_curr() reports `runtime = rq_clock_task - exec_start`
 * (update_se(), kernel/sched/fair.c) and exec_start was set at the switch-in (set_next_entity() →
 * update_stats_curr_start()), or at the previous update_curr(), which would have been recorded too.
 *
 * Replay holds each event back for a window (a tick and a half: the first report after a switch-in comes at the
 * next tick at the latest) in a ReplayQueue. A sched_stat_runtime of task T on CPU C at t with runtime R makes a
 * candidate switch-in idle → T on C at s = t − R (replay_queue_infer_switch_in()) when nothing held between s and
 * t contradicts it: no switch on C, no event on C in another task's context, no event about T elsewhere. The
 * replay applies the candidate only if, once every earlier event is applied, the model has C idle and T not
 * running (replay.c): when the switch-in was recorded, the model already runs T there and nothing is added.
 *
 * The same report dates a wake-up onto an idle CPU that was recorded (replay_queue_redate_wakeup()). The kernel
 * enqueues the task (its PELT update, its cpufreq hook) before sched_wakeup is traced (ttwu_do_activate():
 * activate_task(), then wakeup_preempt(), then ttwu_do_wakeup()'s trace_sched_wakeup(), kernel/sched/core.c), and on
 * this VM the trace stamps a wake-up raised on an idle CPU 10-40 µs after the enqueue. The switch-in that follows
 * does not update the rq clock (wakeup_preempt() → rq_clock_skip_update(): __schedule()'s update_rq_clock() is
 * skipped), so exec_start, set at the pick, is the enqueue's clock, and the task's PELT counts its run from there:
 * s = t − R before the traced wake-up says when the enqueue was. The wake-up and the switch-in are applied at s.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

typedef struct ReplayQueueItem {
        SchedEvent ev;
        bool inferred;            /* a candidate switch-in (ev: sched_switch idle → the task), not a traced event */
} ReplayQueueItem;

/* The events held back, in the order they are to be applied (the trace's, candidates inserted by time). */
typedef struct ReplayQueue {
        ReplayQueueItem *items;
        size_t head, n, cap;      /* items[head .. head + n) */
} ReplayQueue;

void replay_queue_done(ReplayQueue *q);
int replay_queue_push(ReplayQueue *q, const SchedEvent *ev);
/* The first item if its time is at most @until_ns (UINT64_MAX: any), taken off the queue: true; else false. */
bool replay_queue_pop(ReplayQueue *q, uint64_t until_ns, ReplayQueueItem *ret);
size_t replay_queue_size(const ReplayQueue *q);

/*
 * @ev, a sched_stat_runtime about to be pushed: inserts a candidate switch-in at its time minus its runtime if
 * the runtime is at most @window_ns, the switch-in falls after @applied_ns (the latest time already applied) and
 * no held event contradicts it (above). Returns 1 if inserted, 0 if not, -ENOMEM.
 */
int replay_queue_infer_switch_in(ReplayQueue *q, const SchedEvent *ev, uint64_t window_ns, uint64_t applied_ns);

/*
 * @ev, a sched_stat_runtime about to be pushed: if it is its task's first report after a held switch-in idle → the
 * task that follows a held sched_wakeup of it onto that CPU (nothing else on the CPU in between, nothing about the
 * task elsewhere), and its time minus its runtime falls before that wake-up but after every earlier event of the
 * CPU and after @applied_ns, the wake-up and the switch-in are moved to that time (above). Returns 1 if moved, 0
 * if not.
 */
int replay_queue_redate_wakeup(ReplayQueue *q, const SchedEvent *ev, uint64_t applied_ns);
