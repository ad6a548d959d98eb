/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demand-lag.c: EEVDF's lag on the root cfs_rq (kernel/sched/fair.c, 6.6+), for the delayed dequeue of a sleeper
 * (dequeue_entity(): a task that is not eligible at its sleep stays queued, in the root's load, until a pick finds
 * it eligible). At nice 0 every entity has the same weight, so the kernel's virtual times are time:
 *   - V (avg_vruntime()) is the mean vruntime of the root's entities, the running one and the delayed ones included:
 *     while a task runs for t among n entities its vruntime grows by t and V by t / n (DemandCpu.vclock_ns, advanced
 *     in dm_cpu_advance());
 *   - a task's lag is V - its vruntime (Task.lag_ns as of Task.vmark_ns): it grows by V's advance while the task
 *     waits and falls by (n - 1) / n of its own run; alone on the CPU its vruntime is V and its lag 0;
 *   - an entity that leaves with lag l moves V by l / (n - 1) (the mean without it); one placed with lag l
 *     (place_entity(): PLACE_LAG scales it so that it keeps l once in) moves V by -l / n;
 *   - a sleeper dequeued at once keeps its lag for its next wake-up (update_entity_lag(), clamped to
 *     max(2 slices, a tick)); a delayed one dequeued at a pick is eligible, and DELAY_ZERO makes its lag 0;
 *     one woken while still delayed stays where it is (requeue_delayed_entity()).
 * Which eligible entity a pick takes (the earliest virtual deadline) is not followed: a delayed task leaves at the
 * first pick after it became eligible (DelayedTasks). Only tasks attached to the root are followed; a task group's
 * sleepers have their own rule (demand-groups.c).
 */

#include "demand-internal.h"

/* update_entity_lag(): limit = calc_delta_fair(max(2 * se->slice, TICK_NSEC), se); the tick taken as 4 ms (HZ=250,
 * Debian's): the model does not know the kernel's HZ, and 2 slices exceed it from 4 CPUs on. */
#define LAG_TICK_NS 4000000ULL

static void vclock_move(DemandCpu *c, int64_t delta_ns) {
        if (delta_ns >= 0)
                c->vclock_ns += (uint64_t) delta_ns;
        else
                c->vclock_ns -= MIN(c->vclock_ns, (uint64_t) -delta_ns);
}

static int64_t lag_clamp(const Demand *d, int64_t lag_ns) {
        int64_t limit_ns = (int64_t) MAX(2 * d->base_slice_ns, LAG_TICK_NS);

        return CLAMP(lag_ns, -limit_ns, limit_ns);
}

/* V now, @now_ns past the CPU's last advance (its running task's run since then counted). */
static uint64_t root_vclock_at(const DemandCpu *c, uint64_t now_ns) {
        if (!c->curr_cfs || now_ns <= c->shared_at_ns)
                return c->vclock_ns;
        return c->vclock_ns + (now_ns - c->shared_at_ns) / dm_root_nr(c);
}

/* @k, queued and not running, brought up to V (its wait credited). */
static void lag_mark(DemandCpu *c, Task *k) {
        k->lag_ns += (int64_t) (c->vclock_ns - k->vmark_ns);
        k->vmark_ns = c->vclock_ns;
}

/* @k switches in on @c (the CPU advanced to now): what it waited is credited. */
void dm_root_lag_switch_in(DemandCpu *c, Task *k) {
        lag_mark(c, k);
}

/* @k switches out of @c after running @run_ns since its switch-in (the CPU advanced to now). */
void dm_root_lag_switch_out(DemandCpu *c, Task *k, uint64_t run_ns) {
        if (dm_root_nr(c) < 2) {
                k->lag_ns = 0;     /* alone: V is its own vruntime */
                k->vmark_ns = c->vclock_ns;
                return;
        }
        lag_mark(c, k);
        k->lag_ns -= (int64_t) run_ns;
}

/* place_entity() of @k (enqueued on @c, not a delayed task's requeue): its lag kept, V moved by the lag it brings. */
static void root_place(DemandCpu *c, Task *k) {
        unsigned n = dm_root_nr(c);     /* the entities before it */

        if (k->attached_group != TASK_GROUP_ROOT || n == 0)
                k->lag_ns = 0;      /* an empty cfs_rq places it at V: PLACE_LAG needs cfs_rq->nr_queued */
        else if (k->lag_ns != 0)
                vclock_move(c, -k->lag_ns / (int64_t) n);
        k->vmark_ns = c->vclock_ns;
}

/* dequeue_entity() of @k from @c, not delayed: its lag kept (clamped), V moved as it leaves the mean. */
void dm_root_leave(const Demand *d, DemandCpu *c, Task *k) {
        unsigned n = dm_root_nr(c);     /* @k included */

        if (k->attached_group != TASK_GROUP_ROOT)
                return;
        lag_mark(c, k);
        k->lag_ns = lag_clamp(d, k->lag_ns);
        if (n >= 2)
                vclock_move(c, k->lag_ns / (int64_t) (n - 1));
        else
                k->lag_ns = 0;
}

/* @k goes to sleep on @c: not eligible (lag < 0) beside another entity, it stays queued (DELAY_DEQUEUE), eligible
 * once V has caught up with its vruntime; else it leaves. */
void dm_root_sleep(const Demand *d, DemandCpu *c, Task *k) {
        if (k->attached_group != TASK_GROUP_ROOT)
                return;
        lag_mark(c, k);
        if (dm_root_nr(c) >= 2 && k->lag_ns < 0) {
                c->delayed.ran_ns = c->vclock_ns;
                delayed_add(&c->delayed, k, (uint64_t) -k->lag_ns);
                return;
        }
        dm_root_leave(d, c, k);
}

/* @k enqueued on @c: requeued where it was if still delayed there, else placed (a delayed task dequeued at a pick
 * since was eligible: DELAY_ZERO, its lag 0). */
void dm_root_enqueue(DemandCpu *c, Task *k) {
        if (k->attached_group != TASK_GROUP_ROOT) {
                root_place(c, k);     /* its group's delayed state is demand-groups.c's */
                return;
        }
        if (k->delayed && k->delay_epoch == c->delayed.epoch) {
                delayed_requeue(&c->delayed, k);
                return;
        }
        if (k->delayed)
                k->lag_ns = 0;
        delayed_requeue(&c->delayed, k);
        root_place(c, k);
}

/* A pick on @c at @now_ns: its delayed tasks leave once V has reached their vruntime (pick_next_entity()). */
void dm_root_pick(DemandCpu *c, uint64_t now_ns) {
        c->delayed.ran_ns = root_vclock_at(c, now_ns);
        delayed_pick(&c->delayed, 0);
}
