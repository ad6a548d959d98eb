/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c: the seam between event sources and the actuator. It keeps time (events in order, late ones
 * clamped), feeds the demand model (demand.c), asks the governor (governor.c) when a policy may change, and
 * turns changes into Decisions for the commit callback. Pure: no I/O, no clock reads.
 *
 * When a policy is evaluated mirrors where the kernel calls cpufreq_update_util() (reference §4, §5):
 *   - every event recorded on a CPU is a local opportunity for that CPU's policy (the kernel's hooks run on
 *     enqueue, dequeue and PELT decay of the CPU's own rq);
 *   - an event recorded on CPU a that changes the demand of CPU b of another policy P (a wake-up onto b, a
 *     migration to or from b) evaluates P at once only if P permits remote changes; otherwise the demand is
 *     recorded and P waits for the next event recorded on one of its CPUs. That is
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
#include "demand.h"
#include "engine.h"
#include "governor.h"
#include "macro.h"
#include "string-table.h"

typedef struct EnginePolicy {
        PolicyDesc desc;          /* a copy, frequency table included */
        bool managed;             /* config_manages_policy() at engine_new() */
        Governor gov;
        unsigned *cpus;           /* policy->cpus: related CPUs that are online */
        unsigned n_cpus;
        PolicyStats stats;
        bool deferred_pending;    /* a disallowed remote event changed a CPU's demand; no evaluation since */
        uint64_t deferred_since_ns;
} EnginePolicy;

struct Engine {
        EnginePolicy *policies;   /* same order as the topology's, so indexes match */
        size_t n_policies;
        int *policy_of_cpu;       /* CPU → policy index, -1 for none */
        Demand *demand;
        IowaitBoost *iowait;      /* per CPU (struct sugov_cpu) */
        uint64_t *seen_updates;   /* per CPU: demand_cpu_updates() at its last hook call */
        bool *hooked;             /* per CPU: a real hook call in the reaction being processed */
        bool *offline;            /* per CPU: hot-unplugged (engine_cpu_set_online()): not in policy->cpus */
        uint64_t tick_ns;         /* TICK_NSEC: the tick period, the iowait boost reset time */
        bool runtime_reported;    /* the source reports sched_stat_runtime: silence ends a run (demand.c) */
        bool nohz_has_blocked;    /* nohz.has_blocked: a CPU entered idle since the last blocked-load update */
        uint64_t nohz_next_blocked_ns; /* nohz.next_blocked */
        EngineCommitFn commit;
        void *userdata;
        uint64_t now_ns;          /* the latest time applied */
        EngineStats stats;
        bool paused;              /* model only: nothing is committed */
        int32_t self_pid;         /* the governor's own task (engine_set_self()), 0 = none */
        RuleSet *rules;           /* the configuration's per-process rules (the demand model points here) */
        uint64_t rule_decisions[RULES_MAX]; /* changes each rule decided (reason "rule"), since the rules were set */
};

static const char *const decision_kind_table[_DECISION_KIND_MAX] = {
        [DECISION_LOCAL] = "local",
        [DECISION_REMOTE] = "remote",
};

static const char *const decision_reason_table[_DECISION_REASON_MAX] = {
        [DECISION_REASON_DEMAND] = "demand",
        [DECISION_REASON_RT] = "rt",
        [DECISION_REASON_IOWAIT] = "iowait",
        [DECISION_REASON_LIMITS] = "limits",
        [DECISION_REASON_RULE] = "rule",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(decision_kind, DecisionKind);
DEFINE_STRING_TABLE_LOOKUP_TO_STRING(decision_reason, DecisionReason);

/* ---- set-up ---- */

Engine *engine_free(Engine *e) {
        if (!e)
                return NULL;
        for (size_t i = 0; i < e->n_policies; i++) {
                free(e->policies[i].desc.frequencies_khz);
                free(e->policies[i].cpus);
        }
        free(e->policies);
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

static int policy_copy_desc(PolicyDesc *dst, const PolicyDesc *src) {
        *dst = *src;
        dst->frequencies_khz = NULL;
        if (src->n_frequencies == 0 || !src->frequencies_khz) {
                dst->n_frequencies = 0;
                return 0;
        }
        dst->frequencies_khz = malloc(src->n_frequencies * sizeof(uint32_t));
        if (!dst->frequencies_khz)
                return -ENOMEM;
        memcpy(dst->frequencies_khz, src->frequencies_khz, src->n_frequencies * sizeof(uint32_t));
        return 0;
}

/* policy->cpus (the online CPUs of the policy); a topology built without an online mask has all online. */
static int policy_collect_cpus(EnginePolicy *ep, const Topology *t, unsigned n_cpus) {
        bool all_online = CPU_COUNT(&t->online) == 0;

        ep->cpus = calloc(MAX(n_cpus, 1u), sizeof(unsigned));
        if (!ep->cpus)
                return -ENOMEM;
        for (unsigned cpu = 0; cpu < n_cpus; cpu++)
                if (CPU_ISSET(cpu, &ep->desc.cpus) && (all_online || CPU_ISSET(cpu, &t->online)))
                        ep->cpus[ep->n_cpus++] = cpu;
        return 0;
}

static int engine_add_policy(Engine *e, size_t i, const Topology *t, const Config *cfg) {
        EnginePolicy *ep = &e->policies[i];
        uint32_t cur_khz;
        int r;

        r = policy_copy_desc(&ep->desc, &t->policies[i]);
        if (r < 0)
                return r;
        e->n_policies = i + 1; /* from here engine_free() releases it */

        r = policy_collect_cpus(ep, t, demand_n_cpus(e->demand));
        if (r < 0)
                return r;

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

/* TICK_NSEC: the config's tick (CONFIG_HZ=250 → 4 ms by default). */
static uint64_t engine_tick_ns(const Config *cfg) {
        return (cfg->tick_usec > 0 ? cfg->tick_usec : 4000) * 1000;
}

static int engine_set_rules(Engine *e, const RuleSet *rules);

int engine_new(const Topology *topo, const Config *cfg, EngineCommitFn commit, void *userdata, Engine **ret) {
        _cleanup_(engine_freep) Engine *e = NULL;
        unsigned n_cpus;
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

        e->policy_of_cpu = malloc(MAX(n_cpus, 1u) * sizeof(int));
        e->policies = calloc(MAX(topo->n_policies, (size_t) 1), sizeof(EnginePolicy));
        e->iowait = calloc(MAX(n_cpus, 1u), sizeof(IowaitBoost));
        e->seen_updates = calloc(MAX(n_cpus, 1u), sizeof(uint64_t));
        e->hooked = calloc(MAX(n_cpus, 1u), sizeof(bool));
        e->offline = calloc(MAX(n_cpus, 1u), sizeof(bool));
        if (!e->policy_of_cpu || !e->policies || !e->iowait || !e->seen_updates || !e->hooked || !e->offline)
                return -ENOMEM;
        e->tick_ns = engine_tick_ns(cfg);
        for (unsigned cpu = 0; cpu < n_cpus; cpu++)
                e->policy_of_cpu[cpu] = -1;

        for (size_t i = 0; i < topo->n_policies; i++) {
                r = engine_add_policy(e, i, topo, cfg);
                if (r < 0)
                        return r;
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

        e->tick_ns = engine_tick_ns(cfg);
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

        return p >= 0 ? e->policies[p].gov.headroom_x1024 : 1280;
}

/*
 * A CPU's demand with its iowait boost @iowait (sugov_get_util(): util = max(util, boost), then the clamps), why,
 * and (@ret_rule, -1: none) the rule that decided it.
 */
static unsigned cpu_demand(const Engine *e, unsigned cpu, unsigned iowait, DecisionReason *ret_reason,
                           int *ret_rule) {
        unsigned cap = demand_cpu_capacity(e->demand, cpu), util, clamped;
        DemandClamp k;

        *ret_rule = -1;
        if (demand_cpu_nr_rt(e->demand, cpu) > 0) {
                *ret_reason = DECISION_REASON_RT;
                return cap;
        }
        *ret_reason = DECISION_REASON_DEMAND;
        util = MIN(demand_cpu_util(e->demand, cpu) + demand_cpu_rt_avg(e->demand, cpu), cap);
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

/*
 * sugov_get_util() for each CPU of the policy in an update that passed the rate limit, maximum over them:
 * max(demand, iowait boost) (sugov_iowait_apply() runs for every CPU, 6.x sugov_next_freq_shared()), RT/DL
 * runnable → capacity. Returns the utilisation and why it is what it is.
 */
static unsigned policy_effective_util(Engine *e, const EnginePolicy *ep, uint64_t now_ns, DecisionReason *ret_reason,
                                      int *ret_rule) {
        DecisionReason best_reason = DECISION_REASON_DEMAND;
        unsigned util = 0;
        int best_rule = -1;

        for (unsigned c = 0; c < ep->n_cpus; c++) {
                unsigned cpu = ep->cpus[c], u, boost;
                DecisionReason reason;
                int rule;

                /* sugov_next_freq_shared() walks policy->cpus: the online ones. */
                if (e->offline[cpu])
                        continue;
                /* Only a real hook call consumes (halves) the boost; our extra evaluations just look at it. */
                if (e->hooked[cpu])
                        boost = governor_iowait_apply(&e->iowait[cpu], now_ns, demand_cpu_capacity(e->demand, cpu),
                                                      e->tick_ns);
                else
                        boost = governor_iowait_peek(&e->iowait[cpu], now_ns, demand_cpu_capacity(e->demand, cpu),
                                                     e->tick_ns);
                u = cpu_demand(e, cpu, boost, &reason, &rule);
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

        for (unsigned cpu = 0; cpu < demand_n_cpus(e->demand); cpu++) {
                bool busy = cpu_busy_for_tick(e, cpu);

                if (busy && cpu_managed(e, cpu))
                        return true;
                any_busy = any_busy || busy;
                blocked = blocked || (!busy && cpu_managed(e, cpu) && demand_cpu_has_blocked(e->demand, cpu));
        }
        return any_busy && blocked;
}

/* @rule: the rule that decided it (-1: none), counted once the change is in force. */
static void engine_commit(Engine *e, size_t i, const Decision *d, int rule) {
        EnginePolicy *ep = &e->policies[i];
        int r;

        r = e->commit ? e->commit(d, e->userdata) : 0;
        e->stats.decisions[d->kind]++;
        ep->stats.decisions[d->kind]++;
        if (r < 0) {
                /* The old frequency stays in force; try again once the rate limit allows. */
                e->stats.commit_errors++;
                governor_commit(&ep->gov, d->time_ns, d->new_khz, false);
                return;
        }

        governor_commit(&ep->gov, d->time_ns, d->new_khz, true);
        if (rule >= 0 && d->reason == DECISION_REASON_RULE && (unsigned) rule < RULES_MAX)
                e->rule_decisions[rule]++;
        ep->stats.last_change_ns = d->time_ns;
        ep->stats.last_reason = d->reason;
        /* Frequency invariance: from now on, running time on these CPUs counts at the new speed. */
        for (unsigned c = 0; c < ep->n_cpus; c++)
                demand_set_freq_scale(e->demand, ep->cpus[c], d->time_ns, freq_scale(&ep->desc, d->new_khz));
}

/* The frequency policy @i asks for now: the effective util through the governor (with the busy-hold rule
 * for single-CPU policies). */
static uint32_t policy_next_khz(Engine *e, EnginePolicy *ep, uint64_t now_ns, unsigned *ret_util,
                                DecisionReason *ret_reason, int *ret_rule) {
        GovernorCpu single_cpu;

        *ret_util = policy_effective_util(e, ep, now_ns, ret_reason, ret_rule);
        if (ep->n_cpus == 1)
                single_cpu = (GovernorCpu) {
                        .busy = demand_cpu_busy(e->demand, ep->cpus[0]),
                        .idle_calls = demand_cpu_idle_calls(e->demand, ep->cpus[0]),
                        .capped = cpu_capped(e, ep->cpus[0]),
                };
        return governor_next_khz(&ep->gov, &ep->desc, *ret_util, ep->n_cpus == 1 ? &single_cpu : NULL);
}

/*
 * One schedutil update for policy @i at @now_ns, triggered by an event on @cpu: sugov_update_{single,
 * shared}() after the hook bookkeeping. Commits when the frequency should change.
 */
static void engine_evaluate(Engine *e, size_t i, uint64_t now_ns, int cpu, DecisionKind kind,
                            SchedEventType event) {
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

        engine_commit(e, i, &(const Decision) {
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
                .deferred = deferred,
                .deferred_since_ns = deferred ? since : 0,
        }, rule);
}

/* ---- inputs ---- */

/* Events must come in time order; an older one is applied at the latest time seen (and counted). */
static uint64_t engine_clock(Engine *e, uint64_t time_ns, bool count_late) {
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
 * The cpufreq hook of @cpu's rq, if the kernel would call it now: its cfs signal changed (decayed, attach,
 * detach) or a task waking after I/O is enqueued (@iowait). sugov_iowait_boost() and last_update happen in
 * every hook call, before the remote check (reference §5.2); the boost is applied at the evaluation.
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
        memset(e->hooked, 0, demand_n_cpus(e->demand) * sizeof(bool));
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

/*
 * After an event recorded on @cpu changed the demand of @eff's CPUs: the cpufreq hooks of those rqs and of
 * @cpu's own, then the updates the remote rule permits. @iowait_cpu: the CPU whose hook carries
 * SCHED_CPUFREQ_IOWAIT (-1: none).
 */
static void engine_react(Engine *e, int cpu, const DemandEffect *eff, uint64_t now_ns, SchedEventType event,
                         int iowait_cpu) {
        int local = e->policy_of_cpu[cpu];

        engine_hook(e, (unsigned) cpu, now_ns, cpu == iowait_cpu);
        for (unsigned k = 0; k < eff->n_cpus; k++)
                engine_hook(e, (unsigned) eff->cpus[k], now_ns, eff->cpus[k] == iowait_cpu);
        for (unsigned k = 0; k < eff->n_cpus; k++) {
                int b = eff->cpus[k], p = e->policy_of_cpu[b];

                /* The local policy is evaluated once, last. */
                if (p != local)
                        engine_update_policy(e, p, cpu, now_ns, event);
        }
        engine_update_policy(e, local, cpu, now_ns, event);
        engine_unhook(e);
}

/* LOAD_AVG_PERIOD ms (kernel/sched/fair.c: nohz.next_blocked = now + msecs_to_jiffies(LOAD_AVG_PERIOD)). */
#define NOHZ_BLOCKED_PERIOD_NS (UINT64_C(32) * 1000 * 1000)

/* The ILB: the first idle CPU other than @not (find_new_ilb() walks nohz.idle_cpus_mask in order). */
static int engine_find_ilb(const Engine *e, int not) {
        for (unsigned cpu = 0; cpu < demand_n_cpus(e->demand); cpu++)
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
        for (unsigned cpu = 0; cpu < demand_n_cpus(e->demand); cpu++) {
                int p = e->policy_of_cpu[cpu];

                if (demand_cpu_busy(e->demand, cpu) || (newly_idle && (int) cpu == ilb) ||
                    !demand_cpu_has_blocked(e->demand, cpu))
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
        e->stats.lost_switches = demand_lost_switches(e->demand);
        (void) demand_advance(e->demand, cpu, now_ns);
        engine_react(e, (int) cpu, &eff, now_ns, SCHED_EVENT_SWITCH, -1);
        engine_idle_entry(e, (int) cpu, now_ns);
}

int engine_cpu_resync(Engine *e, int cpu, uint64_t time_ns) {
        uint64_t now_ns;

        if (!e || cpu < 0 || (unsigned) cpu >= demand_n_cpus(e->demand))
                return -EINVAL;
        /* At the engine's clock, not @time_ns: this drain's earlier events of other CPUs are still to come, and
         * the loss happened after the last event delivered. */
        now_ns = MIN(time_ns, e->now_ns);
        demand_cpu_resync(e->demand, (unsigned) cpu, now_ns);
        e->stats.resyncs = demand_resyncs(e->demand);
        return 0;
}

int engine_cpu_set_online(Engine *e, int cpu, bool online) {
        if (!e || cpu < 0 || (unsigned) cpu >= demand_n_cpus(e->demand))
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
        return e && cpu >= 0 && (unsigned) cpu < demand_n_cpus(e->demand) && !e->offline[cpu];
}

void engine_expire_silent(Engine *e) {
        if (!e || !e->runtime_reported)
                return;
        for (unsigned cpu = 0; cpu < demand_n_cpus(e->demand); cpu++)
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
        e->stats.task_evictions = demand_task_evictions(e->demand);
        e->stats.lost_switches = demand_lost_switches(e->demand);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                e->stats.invalid_events++;
                return 0;
        }
        (void) demand_advance(e->demand, (unsigned) ev->cpu, now_ns);
        engine_react(e, ev->cpu, &eff, now_ns, ev->type, -1);
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
        if (cpu < 0 || (unsigned) cpu >= demand_n_cpus(e->demand)) {
                e->stats.invalid_events++;
                return 0;
        }
        /* sched_stat_iowait fires in the enqueue of the waking task, on the rq of task_cpu() (reference §6.3). */
        b = demand_iowait_cpu(e->demand, pid, now_ns);
        if (b >= 0)
                eff = (DemandEffect) { .cpus = { b }, .n_cpus = 1 };
        (void) demand_advance(e->demand, (unsigned) cpu, now_ns);
        /* It is part of a wake-up (enqueue_task_fair() with ENQUEUE_WAKEUP): reported as one. */
        engine_react(e, cpu, &eff, now_ns, SCHED_EVENT_WAKEUP, b);
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
        for (unsigned cpu = 0; cpu < demand_n_cpus(e->demand); cpu++) {
                int p = e->policy_of_cpu[cpu];

                if (!demand_cpu_busy(e->demand, cpu))
                        continue;
                (void) demand_advance(e->demand, cpu, now_ns);
                engine_hook(e, cpu, now_ns, false);
                if (p >= 0 && e->hooked[cpu])
                        engine_evaluate(e, (size_t) p, now_ns, (int) cpu, DECISION_LOCAL, _SCHED_EVENT_TYPE_INVALID);
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

/* ---- lazy wake-ups ---- */

/* The highest utilisation for which the policy asks for no more than @khz (the target is monotonic in util). */
static unsigned policy_util_for_khz(const EnginePolicy *ep, uint32_t khz) {
        unsigned lo = 0, hi = governor_capacity(&ep->desc);

        if (governor_target_khz(&ep->gov, &ep->desc, 0) > khz)
                return 0;
        while (lo < hi) {
                unsigned mid = lo + (hi - lo + 1) / 2;

                if (governor_target_khz(&ep->gov, &ep->desc, mid) <= khz)
                        lo = mid;
                else
                        hi = mid - 1;
        }
        return lo;
}

/*
 * Where a quiet task's wake-up can change no frequency (include/engine.h). Recorded on CPU X, of a task woken
 * onto CPU Y, it can raise nothing (its util is below what every floor covers: *ret_util_max), and lower only
 * a policy above its floor, through an evaluation that X may make: X's own policy (local), or Y's under the
 * remote rule. So X is lazy when its policy (if governed) is at its floor and no policy that takes remote
 * updates is above its own. Returns whether some CPU is.
 */
static bool engine_quiet_cpus(const Engine *e, cpu_set_t *ret_cpus, unsigned *ret_util_max) {
        unsigned util_max = CAPACITY_SCALE;
        cpu_set_t cpus;
        bool any;

        if (ret_cpus)
                CPU_ZERO(ret_cpus);
        if (e->paused)
                return false;
        CPU_ZERO(&cpus);
        for (unsigned cpu = 0; cpu < demand_n_cpus(e->demand) && cpu < CPU_SETSIZE; cpu++)
                CPU_SET(cpu, &cpus);
        for (size_t i = 0; i < e->n_policies; i++) {
                const EnginePolicy *ep = &e->policies[i];
                uint32_t floor_khz;

                if (!ep->managed)
                        continue;
                floor_khz = governor_target_khz(&ep->gov, &ep->desc, 0);
                util_max = MIN(util_max, policy_util_for_khz(ep, floor_khz));
                if (ep->gov.cur_khz == floor_khz)
                        continue;
                if (ep->gov.remote)
                        return false;
                /* A deferred remote change does not matter: it waits for a local event there anyway. */
                for (unsigned c = 0; c < ep->n_cpus; c++)
                        if (ep->cpus[c] < CPU_SETSIZE)
                                CPU_CLR(ep->cpus[c], &cpus);
        }
        any = CPU_COUNT(&cpus) > 0;
        if (ret_cpus)
                *ret_cpus = cpus;
        if (ret_util_max)
                *ret_util_max = util_max;
        return any;
}

bool engine_quiet_possible(const Engine *e, cpu_set_t *ret_cpus) {
        if (!e) {
                if (ret_cpus)
                        CPU_ZERO(ret_cpus);
                return false;
        }
        return engine_quiet_cpus(e, ret_cpus, NULL);
}

size_t engine_quiet_tasks(Engine *e, int32_t *pids, size_t max) {
        _cleanup_free_ DemandQuietTask *q = NULL;
        unsigned util_max;
        size_t n;

        if (!e || max == 0 || !engine_quiet_cpus(e, NULL, &util_max))
                return 0;
        /*
         * Half the margin: a quiet task's signals grow while it runs, and a few may be queued together; a task
         * that runs for long is caught by the caller's busy detector anyway.
         */
        util_max /= 2;
        q = calloc(max, sizeof(DemandQuietTask));
        if (!q)
                return 0;
        n = demand_quiet_tasks(e->demand, util_max, q, max);
        for (size_t i = 0; i < n; i++)
                pids[i] = q[i].pid;
        return n;
}

/* ---- state ---- */

unsigned engine_cpu_util(const Engine *e, unsigned cpu) {
        return demand_cpu_util(e->demand, cpu);
}

uint32_t engine_policy_khz(const Engine *e, unsigned policy_index) {
        return policy_index < e->n_policies ? e->policies[policy_index].gov.cur_khz : 0;
}

unsigned engine_policy_util(const Engine *e, unsigned policy_index) {
        const EnginePolicy *ep;
        unsigned util = 0;

        if (policy_index >= e->n_policies)
                return 0;
        ep = &e->policies[policy_index];
        for (unsigned c = 0; c < ep->n_cpus; c++) {
                DecisionReason reason;
                int rule;

                if (!e->offline[ep->cpus[c]])
                        util = MAX(util, cpu_demand(e, ep->cpus[c], 0, &reason, &rule));
        }
        return util;
}

const EngineStats *engine_stats(const Engine *e) {
        return &e->stats;
}

/* ---- status and control ---- */

int engine_policy_stats(const Engine *e, unsigned policy_index, PolicyStats *ret) {
        const EnginePolicy *ep;

        if (policy_index >= e->n_policies)
                return -ENOENT;
        ep = &e->policies[policy_index];
        *ret = ep->stats;
        ret->remote_permitted = ep->gov.remote;
        ret->managed = ep->managed;
        ret->min_khz = ep->desc.scaling_min_khz;
        ret->max_khz = ep->desc.scaling_max_khz;
        return 0;
}

int engine_cpu_state(const Engine *e, unsigned cpu, CpuState *ret) {
        DecisionReason reason;
        int rule;

        if (cpu >= demand_n_cpus(e->demand) || e->policy_of_cpu[cpu] < 0)
                return -ENOENT;
        *ret = (CpuState) {
                .util = demand_cpu_util(e->demand, cpu),
                .util_avg = demand_cpu_util_avg(e->demand, cpu),
                .util_est_sum = demand_cpu_util_est_sum(e->demand, cpu),
                .nr_rt_runnable = demand_cpu_nr_rt(e->demand, cpu),
                .busy = demand_cpu_busy(e->demand, cpu),
                .runnable_avg = demand_cpu_runnable_avg(e->demand, cpu),
                .rt_avg = demand_cpu_rt_avg(e->demand, cpu),
                .effective = cpu_demand(e, cpu, 0, &reason, &rule),
        };
        return 0;
}

int engine_set_limits(Engine *e, unsigned policy_index, uint32_t min_khz, uint32_t max_khz, uint64_t now_ns) {
        EnginePolicy *ep;

        if (policy_index >= e->n_policies)
                return -ENOENT;
        if (min_khz > max_khz)
                return -EINVAL;
        ep = &e->policies[policy_index];
        ep->desc.scaling_min_khz = min_khz;
        ep->desc.scaling_max_khz = max_khz;
        /* sugov_limits(): limits_changed, so the next update bypasses the rate limit and the hold rule. */
        ep->gov.limits_changed = true;
        engine_evaluate(e, policy_index, engine_clock(e, now_ns, false), cpulist_first(&ep->desc.cpus),
                        DECISION_LOCAL, _SCHED_EVENT_TYPE_INVALID);
        return 0;
}

void engine_pause(Engine *e) {
        e->paused = true;
}

int engine_set_policy_managed(Engine *e, unsigned policy_index, bool managed) {
        if (policy_index >= e->n_policies)
                return -EINVAL;
        e->policies[policy_index].managed = managed;
        return 0;
}

int engine_policy_resync(Engine *e, unsigned policy_index, uint32_t cur_khz) {
        if (policy_index >= e->n_policies)
                return -EINVAL;
        e->policies[policy_index].gov.cur_khz = cur_khz;
        e->policies[policy_index].gov.committed = false;
        return 0;
}

void engine_resume(Engine *e, const uint32_t *cur_khz) {
        e->paused = false;
        for (size_t i = 0; i < e->n_policies; i++) {
                if (cur_khz)
                        e->policies[i].gov.cur_khz = cur_khz[i];
                e->policies[i].gov.committed = false; /* the next evaluation may write at once */
        }
}

bool engine_is_paused(const Engine *e) {
        return e->paused;
}

/* ---- per-process rules: status and the live daemon's pinning ---- */

const RuleSet *engine_rules(const Engine *e) {
        return e->rules;
}

uint64_t engine_rule_decisions(const Engine *e, unsigned rule) {
        return e->rules && rule < e->rules->n ? e->rule_decisions[rule] : 0;
}

size_t engine_rule_tasks(Engine *e, unsigned rule, int32_t *pids, size_t max) {
        return e->rules && rule < e->rules->n ? demand_rule_tasks(e->demand, (int) rule, pids, max) : 0;
}

void engine_task_exit(Engine *e, int32_t pid) {
        demand_task_exit(e->demand, pid, e->now_ns);
}

int engine_task_set_rule(Engine *e, int32_t pid, int rule) {
        if (!e->rules)
                return -EINVAL;
        return demand_task_set_rule(e->demand, pid, rule, e->now_ns);
}
