/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-inputs.c: what the event sources feed the engine (engine_event(), engine_tick(), iowait, resyncs) and
 * how each becomes a hook call on the CPUs and policies it touches (see engine.c's header for the kernel's
 * rules this follows).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "engine-internal.h"
#include "governor.h"
#include "macro.h"
#include "model.h"
#include "string-table.h"

/* Events must come in time order; an older one is applied at the latest time seen (and counted). */
uint64_t engine_clock(Engine *e, uint64_t time_ns, bool count_late) {
        if (time_ns < e->now_ns) {
                if (count_late)
                        e->stats.late_events++;
                return e->now_ns;
        }
        e->now_ns = time_ns;
        return time_ns;
}

/* The remote rule failed for policy @i: keep the demand, wait for a local event (counted). */
static void engine_defer(Engine *e, size_t i, uint64_t now_ns) {
        EnginePolicy *ep = &e->policies[i];

        if (e->paused || !ep->managed)
                return;
        if (!ep->deferred_pending) {
                ep->deferred_pending = true;
                ep->deferred_since_ns = now_ns;
        }
        ep->stats.deferred++;
        e->stats.deferred++;
}

/*
 * The cpufreq hook of @cpu's rq, if the kernel would call it now: its signal changed since the last hook call
 * (demand_cpu_updates(): the cfs signal decayed, i.e. crossed a PELT period, or a task was attached or
 * detached, as update_load_avg() → cfs_rq_util_change() in kernel/sched/fair.c, 4.14 to 6.18; an RT/DL enqueue
 * or dequeue, enqueue_top_rt_rq() in rt.c, __add/__sub_running_bw() in deadline.c) or a task waking after I/O
 * is enqueued (@iowait). sugov_iowait_boost() and last_update happen in every hook call, before the remote
 * check (reference §5.2); the boost is applied at the evaluation.
 */
static void engine_hook(Engine *e, unsigned cpu, uint64_t now_ns, bool iowait) {
        uint64_t updates = demand_cpu_updates(e->demand, cpu);

        if (!iowait && updates == e->seen_updates[cpu])
                return;
        e->seen_updates[cpu] = updates;
        e->hooked[cpu] = true;
        governor_iowait_boost(&e->iowait[cpu], now_ns, iowait, e->tick_ns);
}

static void engine_unhook(Engine *e) {
        memset(e->hooked, 0, e->n_cpus * sizeof(bool));
}

/*
 * The cpufreq hook of a CPU of policy @p, run on @cpu: a local update when @cpu is one of P's CPUs, otherwise
 * cpufreq_this_cpu_can_update() lets it through only if P allows remote changes, and the demand waits.
 */
static void engine_update_policy(Engine *e, int p, int cpu, uint64_t now_ns, SchedEventType event) {
        if (p < 0)
                return;
        if (p == e->policy_of_cpu[cpu])
                engine_evaluate(e, (size_t) p, now_ns, cpu, DECISION_LOCAL, event);
        else if (e->policies[p].gov.remote)
                engine_evaluate(e, (size_t) p, now_ns, cpu, DECISION_REMOTE, event);
        else
                engine_defer(e, (size_t) p, now_ns);
}

/* Whether a CPU of @eff in policy @p had a hook call in this reaction. */
static bool effect_hooked_in(const Engine *e, const DemandEffect *eff, int p) {
        for (unsigned k = 0; k < eff->n_cpus; k++)
                if (e->policy_of_cpu[eff->cpus[k]] == p && e->hooked[eff->cpus[k]])
                        return true;
        return false;
}

/*
 * After an event recorded on @cpu changed the rqs of @eff's CPUs: the cpufreq hooks of those rqs, then, for each
 * policy with a CPU whose hook fired, the update the remote rule permits. Only the rqs the event changed are
 * hooked (the kernel's wake-up, migration or exit does not update the rq of the CPU that records it), and a rq
 * only where the kernel calls cpufreq_update_util() (engine_hook()): a policy none of whose CPUs is hooked is not
 * evaluated, and a disallowed remote one has nothing to defer. @iowait_cpu: the CPU whose hook carries
 * SCHED_CPUFREQ_IOWAIT (-1: none).
 */
static void engine_react(Engine *e, int cpu, const DemandEffect *eff, uint64_t now_ns, SchedEventType event,
                         int iowait_cpu) {
        int local = e->policy_of_cpu[cpu];

        for (unsigned k = 0; k < eff->n_cpus; k++)
                engine_hook(e, (unsigned) eff->cpus[k], now_ns, eff->cpus[k] == iowait_cpu);
        for (unsigned k = 0; k < eff->n_cpus; k++) {
                int b = eff->cpus[k], p = e->policy_of_cpu[b];

                /* One update per hook call on another policy's CPU; the local policy is evaluated once, last. */
                if (p != local && e->hooked[b])
                        engine_update_policy(e, p, cpu, now_ns, event);
        }
        if (local >= 0 && effect_hooked_in(e, eff, local))
                engine_update_policy(e, local, cpu, now_ns, event);
        engine_unhook(e);
}

/* LOAD_AVG_PERIOD ms (kernel/sched/fair.c: nohz.next_blocked = now + msecs_to_jiffies(LOAD_AVG_PERIOD)). */
#define NOHZ_BLOCKED_PERIOD_NS (UINT64_C(32) * 1000 * 1000)

/* The ILB: the first idle CPU other than @not (find_new_ilb() walks nohz.idle_cpus_mask in order). */
static int engine_find_ilb(const Engine *e, int not) {
        for (unsigned cpu = 0; cpu < e->n_cpus; cpu++)
                if ((int) cpu != not && !demand_cpu_busy(e->demand, cpu))
                        return (int) cpu;
        return -1;
}

/*
 * _nohz_idle_balance() with NOHZ_STATS_KICK, run on @ilb: update_nohz_stats() → the blocked averages of every
 * idle CPU with blocked load (@ilb's own too unless it is only newly idle), a hook call for each one whose
 * signals decayed, then nohz.next_blocked moves LOAD_AVG_PERIOD ms on; has_blocked stays set while some CPU
 * still has blocked load. The hooks run on @ilb: for another policy's CPU that is a remote update.
 */
static void engine_nohz_blocked_update(Engine *e, int ilb, bool newly_idle, uint64_t now_ns) {
        bool still = false;

        e->nohz_has_blocked = false;
        for (unsigned cpu = 0; cpu < e->n_cpus; cpu++) {
                int p = e->policy_of_cpu[cpu];
                DemandCpuSignals s;

                demand_cpu_signals(e->demand, cpu, &s);
                if (s.busy || (newly_idle && (int) cpu == ilb) || !s.has_blocked)
                        continue;
                if (demand_blocked_update(e->demand, cpu, now_ns)) {
                        engine_hook(e, cpu, now_ns, false);
                        engine_update_policy(e, p, ilb, now_ns, _SCHED_EVENT_TYPE_INVALID);
                        engine_unhook(e);
                }
                still = still || demand_cpu_has_blocked(e->demand, cpu);
        }
        e->nohz_has_blocked = e->nohz_has_blocked || still;
        e->nohz_next_blocked_ns = now_ns + NOHZ_BLOCKED_PERIOD_NS;
}

/* Whether the periodic blocked-load update is due: "nohz.has_blocked && time_after(now, nohz.next_blocked)". */
static bool engine_nohz_due(const Engine *e, uint64_t now_ns) {
        return e->nohz_has_blocked && now_ns > e->nohz_next_blocked_ns;
}

/*
 * A CPU went idle (a switch to the idle task): nohz_newidle_balance() updates the other idle CPUs' blocked load
 * from here when that is due, then nohz_balance_enter_idle() sets nohz.has_blocked. (The kernel
 * also requires the CPU's average idle time to exceed sysctl_sched_migration_cost; not modelled.)
 */
static void engine_idle_entry(Engine *e, int cpu, uint64_t now_ns) {
        /* do_idle(): nohz_run_idle_balance() first, then tick_nohz_idle_stop_tick() → nohz_balance_enter_idle(). */
        if (engine_nohz_due(e, now_ns))
                engine_nohz_blocked_update(e, cpu, true, now_ns);
        e->nohz_has_blocked = true;
}

/*
 * A CPU whose task left no evidence for the silence window ran nothing since that evidence: its switch-out was
 * lost (demand.c). End the run there, and react as to a recorded switch to idle.
 */
static void engine_expire_cpu(Engine *e, unsigned cpu, uint64_t now_ns) {
        DemandEffect eff = { .cpus = { (int) cpu }, .n_cpus = 1 };

        if (!demand_cpu_silent(e->demand, cpu, now_ns))
                return;
        demand_cpu_lost_switch_out(e->demand, cpu, now_ns);
        (void) demand_advance(e->demand, cpu, now_ns);
        engine_react(e, (int) cpu, &eff, now_ns, SCHED_EVENT_SWITCH, -1);
        engine_idle_entry(e, (int) cpu, now_ns);
}

int engine_cpu_resync(Engine *e, int cpu, uint64_t time_ns) {
        uint64_t now_ns;

        if (!e || cpu < 0 || (unsigned) cpu >= e->n_cpus)
                return -EINVAL;
        /* At the engine's clock, not @time_ns: this drain's earlier events of other CPUs are still to come, and
         * the loss happened after the last event delivered. */
        now_ns = MIN(time_ns, e->now_ns);
        demand_cpu_resync(e->demand, (unsigned) cpu, now_ns);
        e->stats.resyncs = demand_resyncs(e->demand);
        return 0;
}

int engine_cpu_set_online(Engine *e, int cpu, bool online) {
        if (!e || cpu < 0 || (unsigned) cpu >= e->n_cpus)
                return -EINVAL;
        if (e->offline[cpu] == !online)
                return 0;
        /* Whatever the model held for it ran before the CPU went (tasks were migrated away: their moves are
         * events of the CPUs they went to); coming back, it starts from its next events. */
        demand_cpu_resync(e->demand, (unsigned) cpu, e->now_ns);
        e->offline[cpu] = !online;
        return 1;
}

bool engine_cpu_online(const Engine *e, int cpu) {
        return e && cpu >= 0 && (unsigned) cpu < e->n_cpus && !e->offline[cpu];
}

void engine_expire_silent(Engine *e) {
        if (!e || !e->runtime_reported)
                return;
        for (unsigned cpu = 0; cpu < e->n_cpus; cpu++)
                engine_expire_cpu(e, cpu, e->now_ns);
}

int engine_event(Engine *e, const SchedEvent *ev) {
        DemandEffect eff = {};
        uint64_t now_ns;
        int r;

        if (!e || !ev)
                return -EINVAL;
        if (ev->type == SCHED_EVENT_STAT_IOWAIT)
                return engine_iowait(e, ev->cpu, ev->iowait.pid, ev->time_ns);
        if (ev->type == SCHED_EVENT_CPU_FREQUENCY)
                return 0; /* the kernel's choice, for a comparison (observe.c): nothing in the model */

        e->stats.events++;
        now_ns = engine_clock(e, ev->time_ns, true);

        r = demand_event(e->demand, ev, now_ns, &eff);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                e->stats.invalid_events++;
                return 0;
        }
        /* No demand_advance() of ev->cpu: the events that update its rq (a switch, an update_curr()) do it. */
        e->cause_pid = sched_event_task_pid(ev);
        engine_react(e, ev->cpu, &eff, now_ns, ev->type, -1);
        e->cause_pid = 0;
        if (ev->type == SCHED_EVENT_SWITCH && ev->sw.next_pid == 0)
                engine_idle_entry(e, ev->cpu, now_ns);
        return 0;
}

int engine_iowait(Engine *e, int cpu, int32_t pid, uint64_t time_ns) {
        DemandEffect eff = {};
        uint64_t now_ns;
        int b;

        if (!e)
                return -EINVAL;

        e->stats.events++;
        now_ns = engine_clock(e, time_ns, true);
        if (cpu < 0 || (unsigned) cpu >= e->n_cpus) {
                e->stats.invalid_events++;
                return 0;
        }
        /*
         * sched_stat_iowait fires in the enqueue of the waking task, on the rq of task_cpu() (reference §6.3).
         * enqueue_task_fair() (kernel/sched/fair.c, 4.14 to 6.18) adds the task's util_est first, then calls
         * cpufreq_update_util(rq, SCHED_CPUFREQ_IOWAIT): the evaluation below sees it.
         */
        b = demand_iowait_enqueue(e->demand, pid, now_ns);
        if (b >= 0)
                eff = (DemandEffect) { .cpus = { b }, .n_cpus = 1 };
        /* It is part of a wake-up (enqueue_task_fair() with ENQUEUE_WAKEUP): reported as one. */
        e->cause_pid = pid;
        engine_react(e, cpu, &eff, now_ns, SCHED_EVENT_WAKEUP, b);
        e->cause_pid = 0;
        return 0;
}

int engine_tick(Engine *e, uint64_t now_ns) {
        int ilb;

        if (!e)
                return -EINVAL;

        e->stats.ticks++;
        now_ns = engine_clock(e, now_ns, false);
        engine_expire_silent(e);

        /* sched_tick() on each busy CPU: task_tick_fair() → update_load_avg() → a hook call if it decayed. */
        for (unsigned cpu = 0; cpu < e->n_cpus; cpu++) {
                int p = e->policy_of_cpu[cpu];

                if (!demand_cpu_busy(e->demand, cpu))
                        continue;
                (void) demand_advance(e->demand, cpu, now_ns);
                engine_hook(e, cpu, now_ns, false);
                if (p >= 0 && e->hooked[cpu]) {
                        e->cause_pid = demand_cpu_curr(e->demand, cpu); /* task_tick_fair(): the running task */
                        engine_evaluate(e, (size_t) p, now_ns, (int) cpu, DECISION_LOCAL, _SCHED_EVENT_TYPE_INVALID);
                        e->cause_pid = 0;
                }
                engine_unhook(e);
        }

        /* nohz_balancer_kick() from a busy CPU's tick: kick the ILB when the blocked-load update is due. */
        if (engine_busy(e) && engine_nohz_due(e, now_ns)) {
                ilb = engine_find_ilb(e, -1);
                if (ilb >= 0)
                        engine_nohz_blocked_update(e, ilb, false, now_ns);
        }
        return engine_busy(e);
}

uint64_t engine_tick_period_ns(const Engine *e) {
        return e->tick_ns;
}
