/* SPDX-License-Identifier: GPL-2.0-or-later */
/* demand-state.c: the demand model's queries (per CPU and per task) and the public side of its rules. */

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

unsigned demand_cpu_util(const Demand *d, unsigned cpu) {
        const DemandCpu *c;

        if (cpu >= d->n_cpus)
                return 0;
        c = &d->cpus[cpu];
        /*
         * cpu_util_cfs_boost() (kernel/sched/fair.c cpu_util(cpu, NULL, -1, 1), 6.5+ "runnable boosting"):
         * max(util_avg, runnable_avg) and util_est, capped at the capacity.
         */
        return MIN(MAX(MAX(c->pelt.util_avg, c->runnable.util_avg), c->util_est_sum), c->cpu_scale);
}

unsigned demand_cpu_runnable_avg(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].runnable.util_avg : 0;
}

unsigned demand_cpu_rt_avg(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].rt.util_avg : 0;
}

bool demand_cpu_has_blocked(const Demand *d, unsigned cpu) {
        const DemandCpu *c;

        if (cpu >= d->n_cpus)
                return false;
        c = &d->cpus[cpu];
        /* cfs_rq_has_blocked() (load_avg, util_avg; runnable stands in for load_avg) || others_have_blocked() */
        return c->pelt.util_avg > 0 || c->runnable.util_avg > 0 || c->rt.util_avg > 0;
}

bool demand_blocked_update(Demand *d, unsigned cpu, uint64_t now_ns) {
        bool cfs, rt;

        if (cpu >= d->n_cpus)
                return false;
        /* sched_balance_update_blocked_averages(): "decayed |= __update_blocked_others(); decayed |= __update_blocked_fair()" */
        cfs = dm_cpu_advance(d, cpu, now_ns, &rt);
        /* __update_blocked_fair(): each group's cfs_rq here, then its entity on the root (demand-groups.c) */
        cfs |= dm_groups_blocked_update(d, cpu);
        if (cfs || rt)
                d->cpus[cpu].updates++;
        return cfs || rt;
}

unsigned demand_cpu_util_avg(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].pelt.util_avg : 0;
}

unsigned demand_cpu_util_est_sum(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].util_est_sum : 0;
}

unsigned demand_cpu_nr_rt(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].nr_rt : 0;
}

bool demand_cpu_busy(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus && d->cpus[cpu].curr_pid != 0;
}

int32_t demand_cpu_curr(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].curr_pid : 0;
}

uint64_t demand_cpu_updates(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].updates : 0;
}

uint64_t demand_cpu_idle_calls(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].idle_calls : 0;
}

void demand_cpu_signals(const Demand *d, unsigned cpu, DemandCpuSignals *ret) {
        const DemandCpu *c;

        if (cpu >= d->n_cpus) {
                *ret = (DemandCpuSignals) {};
                return;
        }
        c = &d->cpus[cpu];
        *ret = (DemandCpuSignals) {
                .capacity = c->cpu_scale,
                .util = demand_cpu_util(d, cpu),
                .rt_avg = c->rt.util_avg,
                .nr_rt = c->nr_rt,
                .busy = c->curr_pid != 0,
                .has_blocked = demand_cpu_has_blocked(d, cpu),
                .idle_calls = c->idle_calls,
        };
}

int demand_task_info(const Demand *d, int32_t pid, DemandTaskInfo *ret) {
        const Task *k = task_table_get(d->tasks, pid);
        bool stale;

        if (!k)
                return -ENOENT;
        /* Queued in an epoch its CPU has left: no longer queued (dm_task_sync_rq(), done lazily). */
        stale = k->on_rq && dm_cpu_valid(d, k->cpu) && k->rq_epoch != d->cpus[k->cpu].epoch;
        *ret = (DemandTaskInfo) {
                .cpu = k->cpu,
                .on_rq = k->on_rq && !stale,
                .running = k->running && !stale,
                .rt = k->rt,
                .attached = k->attached,
                .util_avg = k->util.util_avg,
                .runnable_avg = k->runnable.util_avg,
                .util_est = k->util_est,
        };
        return 0;
}

typedef struct QuietScan {
        const Demand *d;
        unsigned util_max;
        DemandQuietTask *out;
        size_t n, max;
} QuietScan;

static void quiet_visit(Task *k, void *userdata) {
        QuietScan *q = userdata;
        const TaskClamp *r = dm_task_rule(q->d, k);
        DemandQuietTask t;
        size_t i;

        /*
         * Only CFS tasks the model has seen wake, whose every signal is small. Whether one runs now does not
         * matter (its next wake-up does), and the set stays the same while the tasks come and go.
         */
        /* A task a rule boosts is never light: its wake-ups raise its policy (config.h). */
        if (k->rt || k->wakeups == 0 || (r && (r->min_util > 0 || r->rt_boost)) ||
            MAX(MAX(k->util.util_avg, k->runnable.util_avg), k->util_est) > q->util_max)
                return;
        t = (DemandQuietTask) { .pid = k->pid, .wakeups = k->wakeups };
        /* Keep the @max most frequent wakers, sorted by decreasing count (insertion: @max is small). */
        if (q->n == q->max && q->out[q->n - 1].wakeups >= t.wakeups)
                return;
        i = q->n < q->max ? q->n++ : q->n - 1;
        while (i > 0 && q->out[i - 1].wakeups < t.wakeups) {
                q->out[i] = q->out[i - 1];
                i--;
        }
        q->out[i] = t;
}

size_t demand_quiet_tasks(Demand *d, unsigned util_max, DemandQuietTask *out, size_t max) {
        QuietScan q = { .d = d, .util_max = util_max, .out = out, .max = max };

        if (max == 0)
                return 0;
        task_table_foreach(d->tasks, quiet_visit, &q);
        return q.n;
}

size_t demand_n_tasks(const Demand *d) {
        return task_table_size(d->tasks);
}

uint64_t demand_task_evictions(const Demand *d) {
        return task_table_evictions(d->tasks);
}

/* ---- rules: the public side ---- */

static void task_forget_rule(Task *k, void *userdata) {
        Demand *d = userdata;

        /* Matched again at its next event; out of its CPU's counts now, so that they hold no stale index. */
        if (k->queued_rule >= 0 && dm_cpu_valid(d, k->cpu))
                dm_task_unqueue_rule(d, &d->cpus[k->cpu], k);
        k->rule = -1;
        k->comm_hash = 0;
        k->rule_pinned = false;
}

void demand_set_rules(Demand *d, const RuleSet *rules) {
        task_table_foreach(d->tasks, task_forget_rule, d);
        d->rules = rules && rules->n > 0 ? rules : NULL;
        for (unsigned i = 0; d->rules && i < d->rules->n; i++)
                d->clamps[i] = rules_clamp(d->rules, (int) i);
        d->rules_gen++;
}

int demand_task_set_rule(Demand *d, int32_t pid, int rule, uint64_t now_ns) {
        Task *k;
        int r;

        if (!d->rules || rule < -1 || (rule >= 0 && (unsigned) rule >= d->rules->n))
                return -EINVAL;
        /* No rule for a task the model has not seen: nothing to remember (its events would match nothing either). */
        if (rule < 0 && !dm_task_get(d, pid))
                return 0;
        r = dm_task_lookup_or_add(d, pid, now_ns, &k);
        if (r < 0)
                return r;
        k->rule_pinned = true;
        k->rule_gen = d->rules_gen;
        dm_task_set_rule(d, k, rule, now_ns);
        return 0;
}

int demand_task_rule(const Demand *d, int32_t pid) {
        const Task *k = task_table_get(d->tasks, pid);

        return k ? (dm_task_rule(d, k) ? k->rule : -1) : -ENOENT;
}

/*
 * uclamp_rq_util_with() inputs for @cpu (kernel/sched/sched.h, core.c): the max over its queued tasks' uclamp
 * min and max, a task without a rule counting as 0 and 1024; while the rq is empty, min 0 and the max the last
 * task left (uclamp_idle_value()). boost: a queued task's rule says rt_boost.
 */
void demand_cpu_clamp(Demand *d, unsigned cpu, DemandClamp *ret) {
        DemandClamp k = { .max_util = RULE_UTIL_MAX, .min_rule = -1, .max_rule = -1, .boost_rule = -1 };
        unsigned ruled = 0, max = 0;
        int max_rule = -1;
        DemandCpu *c;

        *ret = k;
        if (cpu >= d->n_cpus || !d->rules)
                return;
        c = &d->cpus[cpu];
        for (unsigned i = 0; i < d->rules->n; i++) {
                const TaskClamp *r = &d->clamps[i];

                if (c->nr_rule[i] == 0)
                        continue;
                ruled += c->nr_rule[i];
                if (r->min_util > k.min_util) {
                        k.min_util = r->min_util;
                        k.min_rule = (int) i;
                }
                if (r->max_util > max || max_rule < 0) {
                        max = r->max_util;
                        max_rule = (int) i;
                }
                if (r->rt_boost && !k.boost) {
                        k.boost = true;
                        k.boost_rule = (int) i;
                }
        }
        if (c->nr_cfs + c->nr_rt == 0) {
                /* Idle: the max clamp of the last task to leave stays (no boosted blocked util), min is 0. */
                ret->max_util = c->idle_max_util;
                ret->max_rule = c->idle_max_util < RULE_UTIL_MAX ? c->idle_max_rule : -1;
                return;
        }
        if (c->nr_cfs + c->nr_rt == ruled && max < RULE_UTIL_MAX) {
                /* Every queued task is capped: the highest cap applies. */
                k.max_util = max;
                k.max_rule = max_rule;
        }
        c->idle_max_util = (uint16_t) k.max_util;
        c->idle_max_rule = (int8_t) k.max_rule;
        *ret = k;
}

typedef struct RuleTasks {
        const Demand *d;
        int rule;
        int32_t *pids;
        size_t n, max;
} RuleTasks;

static void rule_tasks_visit(Task *k, void *userdata) {
        RuleTasks *q = userdata;

        if (k->rule != q->rule || !dm_task_rule(q->d, k))
                return;
        if (q->n < q->max)
                q->pids[q->n] = k->pid;
        q->n++;
}

size_t demand_rule_tasks(Demand *d, int rule, int32_t *pids, size_t max) {
        RuleTasks q = { .d = d, .rule = rule, .pids = pids, .max = max };

        task_table_foreach(d->tasks, rule_tasks_visit, &q);
        return q.n;
}
