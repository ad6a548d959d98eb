/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c: the seam between event sources and the actuator. It keeps time (events in order, late ones
 * clamped), feeds the demand model (demand.c), asks the governor (schedutil.c) when a policy may change, and
 * turns changes into Decisions for the commit callback. Pure: no I/O, no clock reads. This file: set-up and the
 * governor side; the inputs are engine-inputs.c's, status and control engine-status.c's (their shared insides:
 * daemon/governor/engine-internal.h).
 *
 * When a policy is evaluated mirrors where the kernel calls cpufreq_update_util() (reference §4, §5):
 *   - an event calls the hook of each rq it changes (the CPU of a switch or of an update_curr(), the target of a
 *     wake-up, both CPUs of a migration, an exiting task's CPU), and a hook call happens only where the kernel
 *     makes one: the rq's cfs signal decayed (a PELT period crossed since its last update), a task was
 *     attached or detached (update_load_avg() → cfs_rq_util_change(), kernel/sched/fair.c), an RT/DL task was
 *     enqueued or dequeued (enqueue_top_rt_rq(), rt.c; __add/__sub_running_bw(), deadline.c), or a task woke
 *     after I/O (enqueue_task_fair()). A policy is evaluated for a hook call on one of its CPUs only;
 *   - a hook call run on CPU a for CPU b of another policy P (a wake-up onto b, a migration to or from b)
 *     evaluates P at once only if P permits remote changes; otherwise the demand is recorded and P waits for
 *     the next hook call on one of its CPUs. That is
 *     cpufreq_this_cpu_can_update() (kernel/sched/cpufreq.c, 5.5+): "cpumask_test_cpu(smp_processor_id(),
 *     policy->cpus) || policy->dvfs_possible_from_any_cpu". Per-CPU bookkeeping before that check (iowait
 *     boost, last_update) is done either way, as in sugov_update_*();
 *   - the tick exists only for CPUs running a task (task_tick_fair() → update_load_avg() → a hook call when
 *     the signal decayed): engine_tick() ticks the busy CPUs, locally; an idle CPU is never ticked (NOHZ);
 *   - idle CPUs' blocked utilisation decays only where the kernel updates it: the nohz blocked-load update
 *     (_nohz_idle_balance() → sched_balance_update_blocked_averages(), kernel/sched/fair.c) that a busy CPU's
 *     tick kicks on the first idle CPU (the ILB) every LOAD_AVG_PERIOD ms while some idle CPU has blocked
 *     load, and that a CPU going idle runs itself when that time has passed (nohz_newidle_balance()). Each
 *     decayed idle CPU gets a hook call from the ILB, under the remote rule.
 * So nothing happens while every CPU sleeps: an idle policy keeps its frequency until an event on it, as with
 * NOHZ. docs/fidelity.md lists what differs.
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


/* ---- set-up ---- */

Engine *engine_free(Engine *e) {
        if (!e)
                return NULL;
        for (size_t i = 0; i < e->n_policies; i++)
                policy_desc_done(&e->policies[i].desc);
        free(e->policies);
        free(e->policy_cpus);
        free(e->policy_of_cpu);
        free(e->iowait);
        free(e->seen_updates);
        free(e->hooked);
        free(e->offline);
        demand_free(e->demand);
        free(e->rules);
        free(e);
        return NULL;
}

/* arch_scale_freq_capacity() as arch_set_freq_scale() computes it: cur << 10 / max. */
static unsigned freq_scale(const PolicyDesc *p, uint32_t khz) {
        if (p->cpuinfo_max_khz == 0)
                return CAPACITY_SCALE;
        return (unsigned) MIN((uint64_t) khz * CAPACITY_SCALE / p->cpuinfo_max_khz, (uint64_t) CAPACITY_SCALE);
}

/* One past the highest CPU any policy or the possible mask mentions. */
static unsigned topology_n_cpus(const Topology *t) {
        unsigned n = 0;

        for (unsigned cpu = 0; cpu < CPU_SETSIZE; cpu++) {
                bool seen = CPU_ISSET(cpu, &t->possible);

                for (size_t i = 0; !seen && i < t->n_policies; i++)
                        seen = CPU_ISSET(cpu, &t->policies[i].cpus);
                if (seen)
                        n = cpu + 1;
        }
        return n;
}

/* How many of the model's @n_cpus CPUs policy @p has: the room its cpus[] takes in Engine.policy_cpus. */
static unsigned policy_n_cpus(const PolicyDesc *p, unsigned n_cpus) {
        unsigned n = 0;

        for (unsigned cpu = 0; cpu < n_cpus; cpu++)
                n += CPU_ISSET(cpu, &p->cpus) ? 1 : 0;
        return n;
}

/* analyze: false positive: desc.frequencies_khz (policy_desc_copy()) is owned by e->policies[i], freed by
 * engine_free(); gcc 12 loses a pointer stored in an element of an allocated array, and reports it where the
 * array is next written (docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-malloc-leak")
/* policy->cpus (the online CPUs of the policy) into @ep->cpus; a topology built without an online mask has all
 * online. */
static void policy_collect_cpus(EnginePolicy *ep, const Topology *t, unsigned n_cpus) {
        bool all_online = CPU_COUNT(&t->online) == 0;

        for (unsigned cpu = 0; cpu < n_cpus; cpu++)
                if (CPU_ISSET(cpu, &ep->desc.cpus) && (all_online || CPU_ISSET(cpu, &t->online)))
                        ep->cpus[ep->n_cpus++] = cpu;
}

/* Policy @i of @t, its cpus[] at @cpus (policy_n_cpus() slots). */
static int engine_add_policy(Engine *e, size_t i, const Topology *t, const Config *cfg, unsigned *cpus) {
        EnginePolicy *ep = &e->policies[i];
        uint32_t cur_khz;
        int r;

        r = policy_desc_copy(&t->policies[i], &ep->desc);
        if (r < 0)
                return r;
        e->n_policies = i + 1; /* from here engine_free() releases it */

        ep->cpus = cpus;
        policy_collect_cpus(ep, t, demand_n_cpus(e->demand));

        ep->managed = config_manages_policy(cfg, ep->desc.id);
        cur_khz = ep->desc.cur_khz > 0 ? ep->desc.cur_khz : ep->desc.scaling_max_khz;
        governor_init(&ep->gov, &ep->desc, cfg, cur_khz);

        for (unsigned c = 0; c < ep->n_cpus; c++) {
                unsigned cpu = ep->cpus[c];

                if (e->policy_of_cpu[cpu] < 0)
                        e->policy_of_cpu[cpu] = (int) i;
                demand_set_capacity(e->demand, cpu, ep->desc.capacity);
                demand_set_freq_scale(e->demand, cpu, 0, freq_scale(&ep->desc, cur_khz));
        }
        return 0;
}
ANALYZER_FALSE_POSITIVE_END

static int engine_set_rules(Engine *e, const RuleSet *rules);

int engine_new(const Topology *topo, const Config *cfg, EngineCommitFn commit, void *userdata, Engine **ret) {
        _cleanup_(engine_freep) Engine *e = NULL;
        unsigned n_cpus, slots = 0, used = 0;
        int r;

        if (!topo || !cfg || !ret)
                return -EINVAL;

        e = calloc(1, sizeof(Engine));
        if (!e)
                return -ENOMEM;
        e->commit = commit;
        e->userdata = userdata;

        n_cpus = topology_n_cpus(topo);
        r = demand_new(n_cpus, &e->demand);
        if (r < 0)
                return r;
        e->n_cpus = demand_n_cpus(e->demand);
        demand_set_autogroup(e->demand, topo->autogroup);
        demand_set_delayed_dequeue(e->demand, !topo->no_delayed_dequeue);

        e->policy_of_cpu = malloc(MAX(n_cpus, 1u) * sizeof(int));
        e->policies = calloc(MAX(topo->n_policies, (size_t) 1), sizeof(EnginePolicy));
        e->iowait = calloc(MAX(n_cpus, 1u), sizeof(IowaitBoost));
        e->seen_updates = calloc(MAX(n_cpus, 1u), sizeof(uint64_t));
        e->hooked = calloc(MAX(n_cpus, 1u), sizeof(bool));
        e->offline = calloc(MAX(n_cpus, 1u), sizeof(bool));
        for (size_t i = 0; i < topo->n_policies; i++)
                slots += policy_n_cpus(&topo->policies[i], n_cpus);
        e->policy_cpus = calloc(MAX(slots, 1u), sizeof(unsigned));
        if (!e->policy_of_cpu || !e->policies || !e->iowait || !e->seen_updates || !e->hooked || !e->offline ||
            !e->policy_cpus)
                return -ENOMEM;
        e->tick_ns = config_tick_ns(cfg); /* resolved by the caller (manager.c, replay.c) */
        for (unsigned cpu = 0; cpu < n_cpus; cpu++)
                e->policy_of_cpu[cpu] = -1;

        for (size_t i = 0; i < topo->n_policies; i++) {
                r = engine_add_policy(e, i, topo, cfg, e->policy_cpus + used);
                if (r < 0)
                        return r;
                used += policy_n_cpus(&topo->policies[i], n_cpus);
        }
        r = engine_set_rules(e, &cfg->rules);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(e);
        return 0;
}

/*
 * A running CFS task reports sched_stat_runtime every tick; one missed report is jitter, so a CPU is silent
 * after this many ticks without evidence (demand_cpu_silent()).
 */
#define SILENCE_TICKS 3

void engine_set_runtime_reported(Engine *e, bool reported) {
        e->runtime_reported = reported;
        demand_set_silence(e->demand, reported ? SILENCE_TICKS * e->tick_ns : 0);
}

void engine_set_tick_ns(Engine *e, uint64_t tick_ns) {
        if (tick_ns == 0)
                return;
        e->tick_ns = tick_ns;
        engine_set_runtime_reported(e, e->runtime_reported);
}

/*
 * The configuration's rules, copied (the demand model points into the copy); every task is matched again at its
 * next event. None: no copy, and the model skips the rules altogether.
 */
static int engine_set_rules(Engine *e, const RuleSet *rules) {
        if (rules->n == 0) {
                demand_set_rules(e->demand, NULL);
                free(e->rules);
                e->rules = NULL;
                return 0;
        }
        if (!e->rules) {
                e->rules = malloc(sizeof(RuleSet));
                if (!e->rules)
                        return -ENOMEM;
        }
        demand_set_rules(e->demand, NULL);       /* forgets every task's index before the set changes */
        memset(e->rule_decisions, 0, sizeof(e->rule_decisions));
        *e->rules = *rules;
        demand_set_rules(e->demand, e->rules);
        return 0;
}

int engine_reconfigure(Engine *e, const Config *cfg) {
        int r;

        if (!e || !cfg)
                return -EINVAL;
        r = engine_set_rules(e, &cfg->rules);
        if (r < 0)
                return r;

        e->tick_ns = config_tick_ns(cfg);
        engine_set_runtime_reported(e, e->runtime_reported);
        /* The managed set stays: taking a policy over or giving it back is the actuator's business. */
        for (size_t i = 0; i < e->n_policies; i++)
                governor_configure(&e->policies[i].gov, &e->policies[i].desc, cfg);
        return 0;
}

/* ---- the governor side ---- */

/*
 * uclamp in sugov_effective_cpu_perf() (kernel/sched/cpufreq_schedutil.c, 6.8+): perf = max(min, min(max,
 * util × headroom)), with min and max the rq's clamps. The governor applies the headroom itself
 * (governor_util_to_khz()), so this returns the utilisation whose perf is the clamped one: for a bound that
 * decides, the bound divided by the headroom, rounded so that the governor's product lands on the bound (it may
 * differ by 1/1024 of capacity from the kernel's, docs/fidelity.md).
 */
static unsigned clamp_util(unsigned util, unsigned min, unsigned max, unsigned headroom_x1024) {
        uint64_t perf = (uint64_t) util * headroom_x1024 / 1024, h = MAX(headroom_x1024, 1u);

        if (perf > max)
                return (unsigned) ((uint64_t) max * 1024 / h);
        if (perf < min && min > 0)
                return (unsigned) (((uint64_t) min * 1024 + h - 1) / h);
        return util;
}

/*
 * A CPU's utilisation as schedutil sees it, from the signals as of their last update (the kernel reads them
 * without updating): effective_cpu_util() of 6.8+ (kernel/sched/syscalls.c) with sugov_get_util()'s
 * cpu_util_cfs_boost(). util = cfs (runnable-boosted) + avg_rt, capped at the capacity; while an RT/DL task is
 * runnable "min = scale" when uclamp is unused, so the capacity. No uclamp, no IRQ or DL signal (fidelity.md).
 */
static unsigned cpu_headroom_x1024(const Engine *e, unsigned cpu) {
        int p = e->policy_of_cpu[cpu];

        return p >= 0 ? e->policies[p].gov.headroom_x1024 : CONFIG_HEADROOM_DEFAULT_X1024;
}

/*
 * A CPU's demand with its iowait boost @iowait (sugov_get_util(): util = max(util, boost), then the clamps), why,
 * and (@ret_rule, -1: none) the rule that decided it.
 */
unsigned engine_cpu_demand(const Engine *e, unsigned cpu, unsigned iowait, DecisionReason *ret_reason,
                           int *ret_rule) {
        DemandCpuSignals s;
        unsigned cap, util, clamped;
        DemandClamp k;

        demand_cpu_signals(e->demand, cpu, &s);
        cap = s.capacity;
        *ret_rule = -1;
        if (s.nr_rt > 0) {
                *ret_reason = DECISION_REASON_RT;
                return cap;
        }
        *ret_reason = DECISION_REASON_DEMAND;
        util = MIN(s.util + s.rt_avg, cap);
        if (iowait > util) {
                util = iowait;
                *ret_reason = DECISION_REASON_IOWAIT;
        }
        if (!e->rules)
                return util;
        demand_cpu_clamp(e->demand, cpu, &k);
        if (k.boost) {
                *ret_reason = DECISION_REASON_RULE;
                *ret_rule = k.boost_rule;
                return cap;
        }
        clamped = clamp_util(util, MIN(k.min_util, cap), MIN(k.max_util, cap), cpu_headroom_x1024(e, cpu));
        if (clamped != util) {
                *ret_reason = DECISION_REASON_RULE;
                *ret_rule = clamped > util ? k.min_rule : k.max_rule;
        }
        return clamped;
}

/*
 * uclamp_rq_is_capped() (kernel/sched/sched.h): cpu_util_cfs() + cpu_util_rt() >= the rq's uclamp max, when a
 * rule caps it. cpu_util_cfs() is max(util_avg, util_est), without the runnable boost.
 */
static bool cpu_capped(const Engine *e, unsigned cpu) {
        unsigned util;
        DemandClamp k;

        if (!e->rules)
                return false;
        demand_cpu_clamp(e->demand, cpu, &k);
        if (k.max_util >= RULE_UTIL_MAX)
                return false;
        util = MAX(demand_cpu_util_avg(e->demand, cpu), demand_cpu_util_est_sum(e->demand, cpu));
        util = MIN(util, demand_cpu_capacity(e->demand, cpu)) + demand_cpu_rt_avg(e->demand, cpu);
        return util >= k.max_util;
}

/* Whether one of @ep's CPUs had a hook call in the reaction being processed: the update is schedutil's own. */
static bool policy_hooked(const Engine *e, const EnginePolicy *ep) {
        for (unsigned c = 0; c < ep->n_cpus; c++)
                if (e->hooked[ep->cpus[c]])
                        return true;
        return false;
}

/*
 * sugov_get_util() for each CPU of the policy in an update that passed the rate limit, maximum over them:
 * max(demand, iowait boost), RT/DL runnable → capacity. Returns the utilisation and why it is what it is.
 */
static unsigned policy_effective_util(Engine *e, const EnginePolicy *ep, uint64_t now_ns, DecisionReason *ret_reason,
                                      int *ret_rule) {
        DecisionReason best_reason = DECISION_REASON_DEMAND;
        /*
         * sugov_next_freq_shared() (kernel/sched/cpufreq_schedutil.c, 5.x to 6.18) runs sugov_iowait_apply() for
         * every CPU of the policy, not only the one whose hook fired: each CPU's boost not re-armed since is
         * halved in every update that passes the rate limit. An evaluation without a hook call on the policy
         * (new scaling limits, engine_set_limits()) only looks at the boosts.
         */
        bool apply = policy_hooked(e, ep);
        unsigned util = 0;
        int best_rule = -1;

        for (unsigned c = 0; c < ep->n_cpus; c++) {
                unsigned cpu = ep->cpus[c], u, boost;
                DecisionReason reason;
                int rule;

                /* sugov_next_freq_shared() walks policy->cpus: the online ones. */
                if (e->offline[cpu])
                        continue;
                if (apply)
                        boost = governor_iowait_apply(&e->iowait[cpu], now_ns, demand_cpu_capacity(e->demand, cpu),
                                                      e->tick_ns);
                else
                        boost = governor_iowait_peek(&e->iowait[cpu], now_ns, demand_cpu_capacity(e->demand, cpu),
                                                     e->tick_ns);
                u = engine_cpu_demand(e, cpu, boost, &reason, &rule);
                if (u > util || c == 0) {
                        util = MAX(u, util);
                        best_reason = reason;
                        best_rule = reason == DECISION_REASON_RULE ? rule : -1;
                }
        }
        *ret_reason = best_reason;
        *ret_rule = best_rule;
        return util;
}

static bool cpu_managed(const Engine *e, unsigned cpu) {
        int p = e->policy_of_cpu[cpu];

        return p >= 0 && e->policies[p].managed;
}

/*
 * The tick is needed while a CPU of a governed policy runs a task, or while some CPU runs one and a governed
 * idle CPU still has blocked load for the nohz update to decay. Busy CPUs that nobody governs need no tick
 * of their own.
 */
/*
 * Busy for the tick: running a task other than the governor itself. The daemon's own switch-in is recorded
 * while it works; its switch-out is read at its next wake-up. Counting its own run as a reason to tick would
 * wake it for as long as it is awake, that is for ever (the kernel's sugov worker does not keep a tick alive
 * for its own sake either: its CPU goes idle when it sleeps).
 */
static bool cpu_busy_for_tick(const Engine *e, unsigned cpu) {
        int32_t curr = demand_cpu_curr(e->demand, cpu);

        return curr != 0 && (e->self_pid == 0 || curr != e->self_pid);
}

void engine_set_self(Engine *e, int32_t pid) {
        e->self_pid = pid;
}

bool engine_busy(const Engine *e) {
        bool any_busy = false, blocked = false;

        for (unsigned cpu = 0; cpu < e->n_cpus; cpu++) {
                bool busy = cpu_busy_for_tick(e, cpu);

                if (busy && cpu_managed(e, cpu))
                        return true;
                any_busy = any_busy || busy;
                blocked = blocked || (!busy && cpu_managed(e, cpu) && demand_cpu_has_blocked(e->demand, cpu));
        }
        return any_busy && blocked;
}

/* @rule: the rule that decided it (-1: none), counted once the change is in force. */
static int engine_commit(Engine *e, size_t i, const Decision *d, int rule) {
        EnginePolicy *ep = &e->policies[i];
        int r;

        r = e->commit ? e->commit(d, e->userdata) : 0;
        e->stats.decisions[d->kind]++;
        ep->stats.decisions[d->kind]++;
        if (r < 0) {
                /* The old frequency stays in force; try again once the rate limit allows. */
                e->stats.commit_errors++;
                governor_commit(&ep->gov, d->time_ns, d->new_khz, false);
                return r;
        }

        governor_commit(&ep->gov, d->time_ns, d->new_khz, true);
        if (rule >= 0 && d->reason == DECISION_REASON_RULE && (unsigned) rule < RULES_MAX)
                e->rule_decisions[rule]++;
        ep->stats.last_change_ns = d->time_ns;
        ep->stats.last_reason = d->reason;
        /* Frequency invariance: from now on, running time on these CPUs counts at the new speed. */
        for (unsigned c = 0; c < ep->n_cpus; c++)
                demand_set_freq_scale(e->demand, ep->cpus[c], d->time_ns, freq_scale(&ep->desc, d->new_khz));
        return 0;
}

/* The frequency policy @i asks for now: the effective util through the governor (with the busy-hold rule
 * for single-CPU policies). */
static uint32_t policy_next_khz(Engine *e, EnginePolicy *ep, uint64_t now_ns, unsigned *ret_util,
                                DecisionReason *ret_reason, int *ret_rule) {
        GovernorCpu single_cpu;
        DemandCpuSignals s;

        *ret_util = policy_effective_util(e, ep, now_ns, ret_reason, ret_rule);
        if (ep->n_cpus == 1) {
                demand_cpu_signals(e->demand, ep->cpus[0], &s);
                single_cpu = (GovernorCpu) {
                        .busy = s.busy,
                        .idle_calls = s.idle_calls,
                        .capped = cpu_capped(e, ep->cpus[0]),
                };
        }
        return governor_next_khz(&ep->gov, &ep->desc, *ret_util, ep->n_cpus == 1 ? &single_cpu : NULL);
}

/*
 * One schedutil update for policy @i at @now_ns, triggered by an event on @cpu: sugov_update_{single,
 * shared}() after the hook bookkeeping. Commits when the frequency should change.
 */
void engine_evaluate(Engine *e, size_t i, uint64_t now_ns, int cpu, DecisionKind kind, SchedEventType event) {
        EnginePolicy *ep = &e->policies[i];
        bool deferred, limits;
        DecisionReason reason;
        uint64_t since;
        uint32_t next_khz;
        unsigned util;
        int rule;

        if (e->paused || !ep->managed || !governor_should_update(&ep->gov, now_ns))
                return;

        /* The update runs: whatever demand a disallowed remote event left is accounted from here on. */
        deferred = ep->deferred_pending;
        since = ep->deferred_since_ns;
        ep->deferred_pending = false;
        limits = ep->gov.limits_changed;

        next_khz = policy_next_khz(e, ep, now_ns, &util, &reason, &rule);
        /* Write only on change: the kernel returns early too (sugov_update_next_freq(), __cpufreq_driver_target()). */
        if (next_khz == ep->gov.cur_khz) {
                ep->gov.limits_changed = false;
                return;
        }

        (void) engine_commit(e, i, &(const Decision) {
                .time_ns = now_ns,
                .policy_index = (unsigned) i,
                .policy_id = ep->desc.id,
                .old_khz = ep->gov.cur_khz,
                .new_khz = next_khz,
                .cpu = cpu,
                .kind = kind,
                .reason = limits ? DECISION_REASON_LIMITS : reason,
                .util = util,
                .event = event,
                .pid = e->cause_pid,
                .deferred = deferred,
                .deferred_since_ns = deferred ? since : 0,
                .source = e->source,
        }, rule);
}

void engine_set_decision_source(Engine *e, DecisionSource source) {
        e->source = source;
}

int engine_apply_decision(Engine *e, const Decision *d) {
        EnginePolicy *ep;

        if (d->policy_index >= e->n_policies || d->kind < 0 || d->kind >= _DECISION_KIND_MAX)
                return -EINVAL;
        ep = &e->policies[d->policy_index];
        if (e->paused || !ep->managed)
                return -EAGAIN;
        /* The model's clock follows the decisions' times (never backwards), as engine_clock() moves it for events. */
        if (d->time_ns > e->now_ns)
                e->now_ns = d->time_ns;
        if (d->deferred) {
                ep->stats.deferred++;
                e->stats.deferred++;
        }
        return engine_commit(e, d->policy_index, d, -1);
}
