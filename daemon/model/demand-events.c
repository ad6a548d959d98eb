/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demand-events.c: the scheduler events fed to the demand model (demand_event() and its cases), in the kernel's
 * order of operations (see demand.c's header for the rules and their kernel sources).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "demand-internal.h"
#include "macro.h"
#include "model.h"
#include "pelt.h"
#include "task-table.h"
#include "util-est.h"

static void effect_add(DemandEffect *e, int cpu) {
        for (unsigned i = 0; i < e->n_cpus; i++)
                if (e->cpus[i] == cpu)
                        return;
        if (cpu >= 0 && e->n_cpus < DEMAND_EFFECT_CPUS_MAX)
                e->cpus[e->n_cpus++] = cpu;
}

static void demand_exit_pid(Demand *d, int32_t pid, uint64_t now_ns, DemandEffect *eff);

/* A dead task's move to the root's cfs_rq (dm_task_exit_move(), demand_exit() below), if still to come. */
static void task_exit_move(Demand *d, Task *k, uint64_t now_ns) {
        if (!k->dead || k->exit_moved)
                return;
        k->exit_moved = true;
        dm_task_exit_move(d, k, now_ns);
}

/*
 * A dead task's sched_stat_runtime is its exit's move (sched_move_task()'s dequeue runs update_curr()) unless the
 * task is preempted right after it: __schedule()'s put_prev_entity() runs update_curr() too, and the move comes when
 * the task runs again (a storm's child preempted in exit_mm() by a waking task: the move 2 ms after that report,
 * /tmp/orc-l8/phase in docs/fidelity.md, session 20). So the move waits for @cpu's next event: a switch that
 * preempts the task takes it back, anything else makes it (at that event: the µs between are the final switch's).
 */
static void exit_move_settle(Demand *d, const SchedEvent *ev, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[ev->cpu];
        Task *k;

        if (c->exit_move_pid == 0)
                return;
        k = dm_task_get(d, c->exit_move_pid);
        c->exit_move_pid = 0;
        if (!k || k->cpu != ev->cpu)
                return;
        if (ev->type == SCHED_EVENT_SWITCH && ev->sw.prev_pid == k->pid && ev->sw.prev_runnable)
                return;
        (void) demand_advance(d, (unsigned) ev->cpu, now_ns);
        task_exit_move(d, k, now_ns);
}

/*
 * A pick on @k's CPU at @now_ns while @k runs there (at its switch-in, or later in its run): pick_next_entity()
 * dequeues the eligible delayed entities it finds, on the root and in @k's group (kernel/sched/fair.c).
 */
static void cpu_pick_with(Demand *d, Task *k, uint64_t now_ns) {
        dm_group_pick_task(d, k, now_ns - MIN(now_ns, k->run_start_ns));
        dm_root_pick(&d->cpus[k->cpu], now_ns);
}

/*
 * A pick that switches to nobody. __schedule() traces sched_switch only when it picks another task, but each of its
 * picks dequeues the delayed entity it finds first (pick_next_entity(): DEQUEUE_DELAYED, then it picks again,
 * kernel/sched/fair.c). One such pick comes at the end of a slice: update_curr() finds the current task past its
 * deadline and, with anything else queued on its cfs_rq (a delayed entity counts), reschedules (update_deadline(),
 * resched_curr_lazy()); the pick then goes down to the task's cfs_rq, where an eligible delayed sibling has the
 * earlier deadline. Seen in a trace only as that update_curr()'s sched_stat_runtime with no switch after it: a storm's
 * delayed parent left its group while its child ran on (docs/fidelity.md, session 20). Taken when the task ran a base
 * slice since its deadline was set and no other task is runnable on the CPU (with others, the root's pick may take
 * another entity, which the model does not follow: EEVDF's virtual deadlines), and only if the CPU's next event is
 * not a switch (whose own pick the switch-in makes).
 */
static bool slice_ended(Demand *d, DemandCpu *c, Task *k, uint64_t now_ns) {
        if (k->slice_run_ns + now_ns - MIN(now_ns, k->slice_mark_ns) < d->base_slice_ns)
                return false;
        k->slice_run_ns = 0;      /* update_deadline(): the next deadline a slice further */
        k->slice_mark_ns = now_ns;
        return c->nr_cfs <= 1;
}

static void slice_pick_settle(Demand *d, const SchedEvent *ev, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[ev->cpu];
        Task *k;

        if (!c->slice_pick)
                return;
        c->slice_pick = false;
        if (ev->type == SCHED_EVENT_SWITCH || c->curr_pid == 0 || !c->curr_cfs)
                return;
        k = dm_task_get(d, c->curr_pid);
        if (!k || k->cpu != ev->cpu)
                return;
        cpu_pick_with(d, k, now_ns);
}

/* A task that exited while running is gone once switched out (task_dead_fair(), below): its util is removed. */
static void task_dead_switched_out(Demand *d, Task *k, uint64_t now_ns) {
        DemandEffect eff = {};

        if (!k->dead)
                return;
        task_exit_move(d, k, now_ns);    /* no report of the move seen: it came before the last switch all the same */
        demand_exit_pid(d, k->pid, now_ns, &eff);
}

/* The CPU's previous task, if we missed its switch-out, is no longer running there. */
static void cpu_forget_curr(Demand *d, int cpu, int32_t unless_pid) {
        DemandCpu *c = &d->cpus[cpu];
        Task *k;

        if (c->curr_pid == 0 || c->curr_pid == unless_pid)
                return;
        k = dm_task_get(d, c->curr_pid);
        if (k && k->cpu == cpu) {
                k->running = false;
                task_dead_switched_out(d, k, c->seen_ns);
        }
}

static void switch_prev(Demand *d, int cpu, const SchedEvent *ev, uint64_t now_ns) {
        Task *k;

        if (ev->sw.prev_pid == 0)
                return;
        k = dm_task_get(d, ev->sw.prev_pid);
        if (!k || k->cpu != cpu)
                return;
        k->last_seen_ns = now_ns;
        if (k->running && !k->rt) {
                /* the clock its group's sleepers' lag is paid on; on the root, its own lag (V grew meanwhile) */
                dm_group_ran(d, k, dm_task_last_run_ns(k));
                dm_root_lag_switch_out(&d->cpus[cpu], k, dm_task_last_run_ns(k));
        }
        if (k->running)
                k->slice_run_ns += now_ns - MIN(now_ns, k->slice_mark_ns);
        k->running = false;
        /* prev_state R or R+ (preempted): prev stays queued; anything else went to sleep (reference §6.3). */
        /* A dead task is not a sleeper: no delayed dequeue (DEQUEUE_SPECIAL for TASK_DEAD, try_to_block_task()) */
        if (!ev->sw.prev_runnable && k->on_rq)
                dm_task_dequeue(d, k, now_ns, !k->dead);
        dm_task_set_class(d, k, ev->sw.prev_prio, ev->sw.prev_comm, cpu, now_ns);
        /* preempted in do_exit() (prev_state R+: exit_mm() can take ms), it runs again before its last switch */
        if (!ev->sw.prev_runnable)
                task_dead_switched_out(d, k, now_ns);
}

/* @k runs on @cpu from @now_ns (the CPU was advanced to @now_ns with its previous curr). */
static void cpu_set_curr(Demand *d, int cpu, Task *k, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];

        if (k->running && dm_cpu_valid(d, k->cpu) && k->cpu != cpu && d->cpus[k->cpu].curr_pid == k->pid) {
                /* It runs here now, so it no longer runs there: the other CPU's switch was lost too. */
                DemandCpu *o = &d->cpus[k->cpu];

                (void) demand_advance(d, (unsigned) k->cpu, now_ns);
                o->clock.idle_pending = true;
                o->curr_pid = 0;
                o->curr_cfs = o->curr_rt = o->curr_inferred = false;
        }
        dm_task_advance(d, k, now_ns);      /* the wait in the queue ends here */
        c->idle_calls += c->curr_pid == 0;
        if (k->on_rq && k->cpu != cpu)
                dm_task_migrate(d, k, cpu, now_ns);    /* a migration we did not see */
        else if (!k->on_rq)
                dm_task_enqueue(d, k, cpu, now_ns);    /* a wake-up we did not see */
        if (!k->running)
                dm_root_lag_switch_in(c, k);           /* what it waited is credited */
        k->running = true;
        k->run_start_ns = now_ns;
        k->shared_start_ns = c->shared_ns;
        k->slice_mark_ns = now_ns;
        c->curr_pid = k->pid;
        c->curr_cfs = !k->rt;
        c->curr_rt = k->rt && !k->stop;
        c->seen_ns = now_ns;
        c->curr_inferred = false;
        /* set_next_entity(): the pick updates its group (and the group's entity) */
        if (!k->rt) {
                cpu_pick_with(d, k, now_ns);
                c->updates += dm_group_touch(d, k, 0);
        }
}

/*
 * Nothing is queued on @cpu any more, whatever events were lost (dm_task_sync_rq(): a task of an older epoch is
 * re-added at its next switch-in or wake-up): its counts, util_est sum, rule clamps and delayed tasks, the root's
 * and every group's.
 */
static void cpu_forget_queue(Demand *d, unsigned cpu) {
        DemandCpu *c = &d->cpus[cpu];

        c->epoch++;
        dm_cpu_clear_rules(c);
        c->nr_cfs = c->nr_rt = 0;
        c->util_est_sum = 0;
        delayed_flush(&c->delayed);
        dm_groups_cpu_empty(d, cpu);
}

/* The CPU runs its idle task from now on (it was advanced to now with its previous curr). */
static void cpu_set_idle(Demand *d, unsigned cpu, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];

        /* The idle task: idle entries are what the busy-hold rule counts. */
        c->clock.idle_pending = c->curr_pid != 0;
        c->curr_pid = 0;
        c->curr_cfs = c->curr_rt = false;
        c->seen_ns = now_ns;
        c->curr_inferred = false;
        /* Nothing is runnable here any more, whatever events were lost. */
        cpu_forget_queue(d, cpu);
        /*
         * The newidle balance on the way to idle (sched_balance_newidle() → sched_balance_update_blocked_averages())
         * updates every group's cfs_rq here: lazily removed util leaves, and reaches the root.
         */
        c->updates += dm_groups_blocked_update(d, cpu);
}

static int switch_next(Demand *d, int cpu, const SchedEvent *ev, uint64_t now_ns) {
        Task *k;
        int r;

        if (ev->sw.next_pid == 0) {
                cpu_set_idle(d, (unsigned) cpu, now_ns);
                return 0;
        }
        r = dm_task_lookup_or_add(d, ev->sw.next_pid, now_ns, &k);
        if (r < 0)
                return r;
        dm_task_set_class(d, k, ev->sw.next_prio, ev->sw.next_comm, cpu, now_ns);
        cpu_set_curr(d, cpu, k, now_ns);
        return 0;
}

static int demand_switch(Demand *d, int cpu, const SchedEvent *ev, uint64_t now_ns) {
        /* Close the span that ends here with the state it had, then change state. */
        (void) demand_advance(d, (unsigned) cpu, now_ns);
        /* the pick: groups left with only delayed tasks by earlier events lose them (demand-groups.c) */
        dm_groups_pick(d, (unsigned) cpu);
        cpu_forget_curr(d, cpu, ev->sw.prev_pid);
        switch_prev(d, cpu, ev, now_ns);
        /* the pick with no runnable task left: the root's delayed ones are taken off (pick_next_entity()) */
        if (d->cpus[cpu].nr_cfs == 0)
                delayed_flush(&d->cpus[cpu].delayed);
        return switch_next(d, cpu, ev, now_ns);
}

/*
 * Lost switches (shared/notes/platform.md, "A quiet machine"): on this VM some tasks' switch-outs never reach
 * perf or ftrace, so the model would believe the last task switched in runs on until the CPU's next event,
 * seconds later maybe: an idle CPU would be ticked and credited with time nobody ran. Two kinds of evidence
 * end such a run:
 *  - every event names the task current on its CPU when it was recorded (common_pid; sched_switch is traced
 *    in __schedule() with prev current). Another task, or the idle task, there means a switch was lost. The
 *    old curr stops at its last evidence (its switch-in, or the last event in its context) and the new one
 *    starts at the event: no running time is credited that no event proves (if the new one is the idle task,
 *    the CPU is idle from the last evidence);
 *  - a CPU that runs a CFS task reports sched_stat_runtime at least once a tick (sched_tick() →
 *    task_tick_fair() → entity_tick() → update_curr() → update_curr_task(), kernel/sched/fair.c; RT tasks
 *    only since 6.8, so they are left out). No report for longer than demand_set_silence()'s window means
 *    the task stopped at its last evidence (demand_cpu_silent()); the engine ends its run.
 * Neither can take back what the model already accounted: a switch is placed no earlier than the CPU's clock.
 */
static int cpu_lost_switch(Demand *d, int cpu, int32_t pid, uint64_t since_ns, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];
        uint64_t at_ns = MIN(MAX(c->seen_ns, c->clock.task_ns), now_ns);
        Task *k;
        int r;

        d->lost_switches++;
        if (c->curr_pid != 0) {
                (void) demand_advance(d, (unsigned) cpu, at_ns);
                cpu_forget_curr(d, cpu, pid);
                if (pid == 0) {
                        cpu_set_idle(d, (unsigned) cpu, at_ns);
                        return 0;
                }
                /* Another task: the queue is not empty, but what ran until now is not known. */
                c->curr_pid = 0;
                c->curr_cfs = c->curr_rt = false;
        }
        if (pid == 0)
                return 0;
        /* The new curr's run is proven from @since_ns on, but not before the CPU's last evidence or its clock. */
        since_ns = MIN(MAX(since_ns, MAX(c->seen_ns, c->clock.task_ns)), now_ns);
        (void) demand_advance(d, (unsigned) cpu, since_ns);
        r = dm_task_lookup_or_add(d, pid, since_ns, &k);
        if (r < 0)
                return r;
        cpu_set_curr(d, cpu, k, since_ns);
        return 0;
}

/*
 * Since when the task whose context recorded @ev is proven to run: a sched_stat_runtime in its own context reports
 * `runtime = rq_clock_task - exec_start`, exec_start being set at its switch-in (set_next_entity() →
 * update_stats_curr_start()) or its previous update_curr(), which would have been recorded (update_se(),
 * kernel/sched/fair.c). So the first one after a switch-in the trace lost (docs/platform.md) dates that switch-in,
 * live as in replay (whose lookahead, replay-lookahead.c, also puts the switch-in itself back).
 */
static uint64_t context_proven_since(const SchedEvent *ev, int32_t pid, uint64_t now_ns) {
        if (ev->type != SCHED_EVENT_RUNTIME || ev->runtime.pid != pid || ev->runtime.runtime_ns > now_ns)
                return now_ns;
        return now_ns - ev->runtime.runtime_ns;
}

/* The task whose context recorded @ev is current on its CPU: evidence for the model's curr, or a lost switch. */
static int cpu_resync_context(Demand *d, const SchedEvent *ev, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[ev->cpu];
        int32_t pid;

        if (ev->type == SCHED_EVENT_SWITCH)
                pid = ev->sw.prev_pid;
        else if (ev->has_context)
                pid = ev->context_pid;
        else
                return 0;
        if (pid < 0)
                return 0;
        /* Woken onto the idle CPU, the task runs there next (dm_task_run_if_idle()): until then the idle task's
         * context is no contradiction. */
        if (pid == 0 && c->curr_inferred)
                return 0;
        if (pid != c->curr_pid)
                return cpu_lost_switch(d, ev->cpu, pid, context_proven_since(ev, pid, now_ns), now_ns);
        c->seen_ns = MAX(c->seen_ns, now_ns);
        c->curr_inferred = false;
        return 0;
}

void demand_set_silence(Demand *d, uint64_t silence_ns) {
        d->silence_ns = silence_ns;
}

bool demand_cpu_silent(const Demand *d, unsigned cpu, uint64_t now_ns) {
        const DemandCpu *c;

        if (cpu >= d->n_cpus || d->silence_ns == 0)
                return false;
        c = &d->cpus[cpu];
        return c->curr_pid != 0 && c->curr_cfs && now_ns > c->seen_ns + d->silence_ns;
}

void demand_cpu_lost_switch_out(Demand *d, unsigned cpu, uint64_t now_ns) {
        if (cpu < d->n_cpus && d->cpus[cpu].curr_pid != 0)
                (void) cpu_lost_switch(d, (int) cpu, 0, now_ns, now_ns);
}

void demand_cpu_resync(Demand *d, unsigned cpu, uint64_t now_ns) {
        DemandCpu *c;

        if (cpu >= d->n_cpus)
                return;
        c = &d->cpus[cpu];
        (void) demand_advance(d, cpu, MAX(now_ns, c->clock.task_ns));
        cpu_forget_curr(d, (int) cpu, 0);
        c->curr_pid = 0;
        c->curr_cfs = c->curr_rt = false;
        c->curr_inferred = false;
        c->seen_ns = MAX(now_ns, c->clock.task_ns);
        /* Every task queued here is forgotten: the next switch-in or wake-up re-adds it. */
        cpu_forget_queue(d, cpu);
        d->resyncs++;
}

uint64_t demand_resyncs(const Demand *d) {
        return d->resyncs;
}

uint64_t demand_lost_switches(const Demand *d) {
        return d->lost_switches;
}

/* @parent_pid: the task current when sched_wakeup_new was recorded (wake_up_new_task() runs in the parent's
 * context), 0 when the event does not say. */
static void task_init_new(Demand *d, Task *k, int cpu, int32_t parent_pid, uint64_t now_ns) {
        /* post_init_entity_util_avg() runs in wake_up_new_task() after select_task_rq() chose @cpu. */
        (void) demand_advance(d, (unsigned) cpu, now_ns);
        pelt_reset(&k->util, now_ns);
        pelt_reset(&k->runnable, now_ns);
        pelt_reset(&k->load, now_ns);
        k->lag_ns = 0;           /* a new task is placed at V (its vlag 0) */
        dm_task_inherit_group(d, k, parent_pid);
        if (k->rt)
                return;
        /* init_entity_runnable_average(): "sa->load_avg = scale_load_down(se->load.weight)" */
        k->load.util_avg = 1024;
        k->load.util_sum = (uint64_t) k->load.util_avg * pelt_divider(&k->load);
        /* From the cfs_rq of its task group on @cpu (demand-groups.c), the root's without groups. */
        k->util.util_avg = dm_task_initial_util(d, k, cpu);
        /* "sa->runnable_avg = sa->util_avg" (reference §1.5); the sums are rebuilt from the averages. */
        k->runnable.util_avg = k->util.util_avg;
        k->runnable.util_sum = (uint64_t) k->runnable.util_avg * pelt_divider(&k->runnable);
        k->cpu = cpu;
        k->clock_unset = true;   /* se->avg.last_update_time == 0 until the enqueue attaches it */
}

static int demand_wakeup(Demand *d, const SchedEvent *ev, uint64_t now_ns, DemandEffect *eff) {
        int target = ev->wakeup.target_cpu, old;
        bool is_new = ev->type == SCHED_EVENT_WAKEUP_NEW;
        Task *k;
        int r;

        if (!dm_cpu_valid(d, target))
                return -ERANGE;
        k = dm_task_get(d, ev->wakeup.pid);
        if (k && is_new && !k->on_rq) {
                /* A recycled pid: the old task is gone (we missed its exit). */
                dm_task_detach(d, k, now_ns, true);
                task_table_remove(d->tasks, k->pid);
        }
        r = dm_task_lookup_or_add(d, ev->wakeup.pid, now_ns, &k);
        if (r < 0)
                return r;
        dm_task_set_class(d, k, ev->wakeup.prio, ev->wakeup.comm, target, now_ns);
        k->wakeups += k->wakeups < UINT32_MAX;
        if (is_new && !k->on_rq)
                task_init_new(d, k, target, ev->has_context ? ev->context_pid : 0, now_ns);

        /* place_entity(): a new deadline a slice away, half a slice for a new task (PLACE_DEADLINE_INITIAL) */
        if (!k->on_rq)
                k->slice_run_ns = is_new ? d->base_slice_ns / 2 : 0;
        old = k->cpu;
        if (k->on_rq && old == target)
                return 0;     /* ttwu_runnable(): already queued there, nothing changes */
        if (k->on_rq)
                dm_task_migrate(d, k, target, now_ns);
        else
                dm_task_enqueue(d, k, target, now_ns);
        dm_task_run_if_idle(d, k, now_ns);
        if (old >= 0 && old != target)
                effect_add(eff, old);  /* a wake-up migration: the old CPU loses the task's util */
        effect_add(eff, target);
        return 0;
}

static int demand_migrate(Demand *d, const SchedEvent *ev, uint64_t now_ns, DemandEffect *eff) {
        int dest = ev->migrate.dest_cpu, src;
        Task *k;
        int r;

        if (!dm_cpu_valid(d, dest) || !dm_cpu_valid(d, ev->migrate.orig_cpu))
                return -ERANGE;
        r = dm_task_lookup_or_add(d, ev->migrate.pid, now_ns, &k);
        if (r < 0)
                return r;
        dm_task_set_class(d, k, ev->migrate.prio, ev->migrate.comm, dest, now_ns);
        /* Trust our own idea of where the task is; orig_cpu is task_cpu() before the move. */
        src = k->cpu >= 0 ? k->cpu : ev->migrate.orig_cpu;
        if (src == dest)
                return 0;
        if (k->cpu < 0)
                k->cpu = src;
        dm_task_migrate(d, k, dest, now_ns);
        dm_task_run_if_idle(d, k, now_ns);
        effect_add(eff, src);
        effect_add(eff, dest);
        return 0;
}

/*
 * sched_stat_runtime comes from update_curr() of the task running on the CPU, so it names rq->curr: if the model
 * has another task (or idle) there, a switch was lost (platform.md: switch-ins raised from idle go missing on
 * some kernels) and the CPU is resynced as if it had been recorded.
 */
static int demand_runtime(Demand *d, int cpu, const SchedEvent *ev, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];
        Task *k;
        int r;

        (void) demand_advance(d, (unsigned) cpu, now_ns);
        if (ev->runtime.pid == 0)
                return 0;
        /*
         * Recorded in another task's context: an update_curr() of another CPU's run queue done from here (an enqueue
         * there by this CPU: the stopper's move_queued_task(), a remote wake-up), about the task current there. It
         * says nothing of who runs here (the context said that: cpu_resync_context()); taken as this CPU's, a busy
         * CPU's task was moved here whenever this one migrated a task to it.
         */
        if (ev->has_context && ev->context_pid != ev->runtime.pid)
                return 0;
        if (c->curr_pid == ev->runtime.pid) {
                /* entity_tick() (or a dequeue) after this update_curr(): update_load_avg(UPDATE_TG) up the groups */
                k = dm_task_get(d, ev->runtime.pid);
                if (k && k->cpu == cpu && !k->rt) {
                        c->updates += dm_group_touch(d, k, 0);
                        if (k->dead && !k->exit_moved)
                                c->exit_move_pid = k->pid;      /* sched_move_task()'s dequeue, or a preemption */
                        c->slice_pick = slice_ended(d, c, k, now_ns);
                }
                c->updates += dm_groups_busy_balance(d, (unsigned) cpu, now_ns);
                return 0;
        }
        r = dm_task_lookup_or_add(d, ev->runtime.pid, now_ns, &k);
        if (r < 0)
                return r;
        cpu_forget_curr(d, cpu, ev->runtime.pid);
        if (k->cpu >= 0 && k->cpu != cpu)
                k->running = false;
        cpu_set_curr(d, cpu, k, now_ns);
        return 0;
}

static void demand_exit_pid(Demand *d, int32_t pid, uint64_t now_ns, DemandEffect *eff) {
        Task *k = dm_task_get(d, pid);

        if (!k)
                return;
        if (dm_cpu_valid(d, k->cpu)) {
                /* task_dead_fair() → remove_entity_load_avg(); the final switch-out finds nothing to do. */
                if (k->on_rq)
                        dm_task_dequeue(d, k, now_ns, false);
                dm_task_drop_early_util_est(d, k);
                dm_task_detach(d, k, now_ns, true);
                effect_add(eff, k->cpu);
        }
        task_table_remove(d->tasks, pid);
}

/*
 * sched_process_exit comes from do_exit() while the task still runs: it keeps running (and its util counting) until
 * its last __schedule(), and only then finish_task_switch() → put_task_struct_rcu_user() → task_dead_fair() →
 * remove_entity_load_avg() takes its util out (kernel/sched/core.c, fair.c). A task that is not running here is
 * removed at once.
 *
 * With task groups, do_exit() first leaves the session's autogroup (kernel/exit.c, after the tracepoint):
 * sched_autogroup_exit_task() → sched_move_task(), and with PF_EXITING set task_wants_autogroup()
 * (kernel/sched/autogroup.c) no longer gives the autogroup, so the task moves to its cpu cgroup's group, the root's
 * (every task here is in the root cgroup): its util is detached from the group's cfs_rq, which the group's entity
 * propagates to the root at once, and attached to the root cfs_rq (task_change_group_fair(), kernel/sched/fair.c).
 * Its removal at the last switch-out is then the root's, not the group's, so it does not wait for the group's next
 * update. The kernel's root shows the move, 467 -> 370 -> 467 within 2 µs, 60 µs after a storm child's
 * sched_process_exit, and the child's util gone at the CPU's next update (docs/fidelity.md, "Under load: the storm's
 * group, the exiting task, the wake-up's clock").
 *
 * The move comes late in do_exit() (after exit_mm(), exit_files(), ...: 50-500 µs after the tracepoint on these VMs),
 * and sched_move_task()'s dequeue runs update_curr(), so its sched_stat_runtime is the first after the exit; the model
 * moves the task there (demand_runtime()), or at the last switch-out if none is seen. Moved at the exit event, the task
 * ran its last few hundred µs as the root's: the root's sum took that run, and the removal (its util_avg, recomputed
 * only at a period boundary) did not take it back, leaving ~5 a child in the root that no entity held (loaded storm,
 * docs/fidelity.md "The exiting task's last run").
 */
static void demand_exit(Demand *d, const SchedEvent *ev, uint64_t now_ns, DemandEffect *eff) {
        Task *k = dm_task_get(d, ev->exit.pid);

        dm_session_forget(d, ev->exit.pid);

        /*
         * The flat model too (session 16): it used to remove at the exit event, which made up for its initial util
         * (always the cap: 455 where the kernel gave a storm's child 252, the root's load_avg not modelled).
         * With the root's load and its delayed tasks followed (util_initial(), root_sleep_delayed()), the kernel's
         * timing is the closer one, on a kernel that groups and on one that does not: storm recordings replayed flat
         * in docs/fidelity.md ("The storm on the CI VM"), p50 54-73 -> 15-22.
         */
        if (k && k->running && dm_cpu_valid(d, k->cpu) && d->cpus[k->cpu].curr_pid == k->pid) {
                k->dead = true;   /* and moved out of its group at its next report (task_exit_move()) */
                return;
        }
        demand_exit_pid(d, ev->exit.pid, now_ns, eff);
}

void demand_task_exit(Demand *d, int32_t pid, uint64_t now_ns) {
        DemandEffect eff = {};

        demand_exit_pid(d, pid, now_ns, &eff);
}

int demand_event(Demand *d, const SchedEvent *ev, uint64_t now_ns, DemandEffect *ret_effect) {
        DemandEffect eff = {};
        int r = 0;

        if (ev->type < 0 || ev->type >= _SCHED_EVENT_TYPE_MAX)
                return -EINVAL;
        if (!dm_cpu_valid(d, ev->cpu))
                return -ERANGE;
        r = cpu_resync_context(d, ev, now_ns);
        if (r < 0)
                return r;
        exit_move_settle(d, ev, now_ns);
        slice_pick_settle(d, ev, now_ns);

        switch (ev->type) {
        case SCHED_EVENT_SWITCH:
                r = demand_switch(d, ev->cpu, ev, now_ns);
                effect_add(&eff, ev->cpu);
                break;
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                r = demand_wakeup(d, ev, now_ns, &eff);
                break;
        case SCHED_EVENT_MIGRATE:
                r = demand_migrate(d, ev, now_ns, &eff);
                break;
        case SCHED_EVENT_EXIT:
                demand_exit(d, ev, now_ns, &eff);
                break;
        case SCHED_EVENT_RUNTIME:
                /* update_curr() on the CPU's running task: a local tick, and word of who runs there. */
                r = demand_runtime(d, ev->cpu, ev, now_ns);
                effect_add(&eff, ev->cpu);
                break;
        case SCHED_EVENT_STAT_IOWAIT:
                /* Not a demand change: engine_event() takes it to engine_iowait() before it gets here. */
                return -EINVAL;
        case SCHED_EVENT_CPU_FREQUENCY:
                return -EINVAL; /* the kernel's frequency, not a demand: engine_event() drops it */
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                break;
        }
        if (r < 0)
                return r;
        if (ret_effect)
                *ret_effect = eff;
        return 0;
}

int demand_iowait_enqueue(Demand *d, int32_t pid, uint64_t now_ns) {
        Task *k = dm_task_get(d, pid);
        DemandCpu *c;

        if (!k || !dm_cpu_valid(d, k->cpu))
                return -ENOENT;
        k->last_seen_ns = now_ns;
        c = &d->cpus[k->cpu];
        /* util_est_enqueue(&rq->cfs, p), first thing in enqueue_task_fair(): no PELT update, only the sum. An RT
         * task's enqueue is enqueue_task_rt()'s, and a task already queued (a lost dequeue) is in the sum. */
        if (k->on_rq || k->rt || k->util_est_early)
                return k->cpu;
        k->util_est_early = true;
        k->rq_epoch = c->epoch;
        k->util_est_enqueued = k->util_est;
        c->util_est_sum += k->util_est_enqueued;
        return k->cpu;
}
