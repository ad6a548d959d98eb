/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine-status.c: the engine's lazy wake-up advice, its state and status queries, pause/resume and limits, and
 * the per-process rules' status. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "engine-internal.h"
#include "governor.h"
#include "macro.h"
#include "model.h"
#include "string-table.h"

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
 * Where a quiet task's wake-up can change no frequency (include/governor.h). Recorded on CPU X, of a task woken
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
        for (unsigned cpu = 0; cpu < e->n_cpus && cpu < CPU_SETSIZE; cpu++)
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
                        util = MAX(util, engine_cpu_demand(e, ep->cpus[c], 0, &reason, &rule));
        }
        return util;
}

const EngineStats *engine_stats(Engine *e) {
        /* The model's own counts are read when asked for, not copied after every event. */
        e->stats.task_evictions = demand_task_evictions(e->demand);
        e->stats.lost_switches = demand_lost_switches(e->demand);
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
        ret->rate_limit_ns = ep->gov.rate_limit_ns;
        ret->headroom_x1024 = ep->gov.headroom_x1024;
        return 0;
}

int engine_cpu_state(const Engine *e, unsigned cpu, CpuState *ret) {
        DecisionReason reason;
        int rule;

        if (cpu >= e->n_cpus || e->policy_of_cpu[cpu] < 0)
                return -ENOENT;
        *ret = (CpuState) {
                .util = demand_cpu_util(e->demand, cpu),
                .util_avg = demand_cpu_util_avg(e->demand, cpu),
                .util_est_sum = demand_cpu_util_est_sum(e->demand, cpu),
                .nr_rt_runnable = demand_cpu_nr_rt(e->demand, cpu),
                .busy = demand_cpu_busy(e->demand, cpu),
                .runnable_avg = demand_cpu_runnable_avg(e->demand, cpu),
                .rt_avg = demand_cpu_rt_avg(e->demand, cpu),
                .effective = engine_cpu_demand(e, cpu, 0, &reason, &rule),
        };
        return 0;
}

bool engine_switch_in_lost(const Engine *e, unsigned cpu, int32_t pid) {
        DemandTaskInfo info;

        if (cpu >= demand_n_cpus(e->demand) || demand_cpu_curr(e->demand, cpu) != 0)
                return false;
        if (demand_task_info(e->demand, pid, &info) < 0)
                return true;      /* not known yet: first seen here */
        if (info.rt)
                return false;
        return !(info.running && info.cpu >= 0 && demand_cpu_curr(e->demand, (unsigned) info.cpu) == pid);
}

int engine_task_session(Engine *e, int32_t pid, int32_t sid, uint64_t time_ns) {
        /* Never before what the model has applied: the live daemon's setsid comes from the proc connector, beside
         * the perf rings (the model's clock is not moved: the events still to come are dated by themselves). */
        return demand_task_set_session(e->demand, pid, sid, MAX(time_ns, e->now_ns));
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
