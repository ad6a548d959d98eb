/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demand.c: the demand model (include/model.h): per-CPU root cfs signals, util_est sums and RT counts,
 * fed by scheduler events, over the per-task state of task-table.c. Pure, no I/O. This file: the clocks, the
 * signals, attach/detach/enqueue/dequeue; the events are demand-events.c's, the queries demand-state.c's
 * (their shared insides: daemon/model/demand-internal.h).
 *
 * Where the kernel's order of operations matters it is followed (kernel/sched/fair.c, 6.x):
 *   enqueue_task_fair(): update_load_avg(se, DO_ATTACH) attaches a task that arrives without a CPU
 *     (new, or migrated: se->avg.last_update_time == 0), and util_est_enqueue() adds its util_est;
 *   dequeue_task_fair(): util_est_dequeue() first, util_est_update() last and only for a dequeue-to-sleep;
 *   migrate_task_rq_fair(): a sleeping task's util leaves its old CPU through remove_entity_load_avg()
 *     (the kernel subtracts it lazily at the old CPU's next update; we do it at once);
 *   detach_entity_cfs_rq()/attach_entity_cfs_rq(): a queued task moved by load balancing moves at once;
 *   task_dead_fair(): an exiting task's util is removed the same way.
 * The PELT clock is the 5.1+ clock_pelt (kernel/sched/pelt.h, update_rq_clock_pelt()): while the CPU runs
 * anything it advances by delta x cpu_scale x freq_scale (two cap_scale()), while it is idle it is synced to
 * the task clock, and at idle entry the time a saturated CPU could not have stolen is kept as lost_idle_time
 * (update_idle_rq_clock_pelt()). Every signal of a CPU (root cfs_rq util and runnable, avg_rt) and of the
 * tasks on it is updated with rq_clock_pelt() = clock_pelt - lost_idle_time.
 *
 * Task groups: with autogroup on, each session's tasks sit in a group cfs_rq per CPU (demand-groups.c); other
 * cgroup hierarchies are not modelled. What is not modelled either: EEVDF delayed dequeue (6.12+: a sleeping task
 * may stay queued a while), the root's load_avg (only its ratio in the new-task rule, see util-est.c), the DL and IRQ PELT signals (DL tasks are counted in avg_rt and ask for max, docs/fidelity.md).
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


/*
 * EEVDF's base slice, what a task runs before its deadline is set again (kernel/sched/fair.c: 0.75 ms scaled by
 * get_update_sysctl_factor(), SCHED_TUNABLESCALING_LOG by default: 1 + ilog2(min(online CPUs, 8))): 1.5 ms on 2
 * CPUs, 3 ms from 8. Taken from the topology's CPU count (debugfs' sched/base_slice_ns says what a tuned kernel has).
 */
static uint64_t dm_base_slice_ns(unsigned n_cpus) {
        unsigned cpus = CLAMP(n_cpus, 1u, 8u), log2 = 0;

        while (cpus >>= 1)
                log2++;
        return UINT64_C(750000) * (1 + log2);
}

int demand_new_with_limit(unsigned n_cpus, size_t max_tasks, Demand **ret) {
        _cleanup_(demand_freep) Demand *d = NULL;
        int r;

        d = calloc(1, sizeof(Demand));
        if (!d)
                return -ENOMEM;
        d->cpus = calloc(MAX(n_cpus, 1u), sizeof(DemandCpu));
        if (!d->cpus)
                return -ENOMEM;
        r = task_table_new(max_tasks, &d->tasks);
        if (r < 0)
                return r;
        d->n_cpus = n_cpus;
        d->base_slice_ns = dm_base_slice_ns(n_cpus);
        for (unsigned i = 0; i < n_cpus; i++)
                d->cpus[i] = (DemandCpu) { .cpu_scale = PELT_SCALE, .freq_scale = PELT_SCALE, .idle_max_util = RULE_UTIL_MAX,
                                            .idle_max_rule = -1 };

        *ret = TAKE_PTR(d);
        return 0;
}

void demand_set_delayed_dequeue(Demand *d, bool on) {
        d->no_delayed_dequeue = !on;
}

int demand_new(unsigned n_cpus, Demand **ret) {
        return demand_new_with_limit(n_cpus, 0, ret);
}

Demand *demand_free(Demand *d) {
        if (!d)
                return NULL;
        task_table_free(d->tasks);
        dm_groups_free(d);
        free(d->sessions);
        free(d->cpus);
        free(d);
        return NULL;
}

unsigned demand_n_cpus(const Demand *d) {
        return d->n_cpus;
}

void demand_set_capacity(Demand *d, unsigned cpu, unsigned capacity) {
        if (cpu >= d->n_cpus)
                return;
        /* No cpu_capacity file (0) means a symmetric machine: full capacity, as arch_topology does. */
        d->cpus[cpu].cpu_scale = capacity == 0 ? PELT_SCALE : MIN(capacity, PELT_SCALE);
}

unsigned demand_cpu_capacity(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].cpu_scale : PELT_SCALE;
}

/* ---- the PELT clock ---- */

/*
 * update_idle_rq_clock_pelt(), when the CPU is about to go idle: "Reflecting stolen time makes sense only if
 * the idle phase would be present at max capacity. As soon as the utilization of a rq has reached the maximum
 * value, it is considered as an always running rq without idle time to steal." Then the clock syncs.
 */
static void cpu_clock_enter_idle(DemandCpu *c) {
        const uint64_t divider = ((uint64_t) (LOAD_AVG_MAX - 1024) << PELT_SCALE_SHIFT) - LOAD_AVG_MAX;

        if (c->pelt.util_sum + c->rt.util_sum >= divider)
                c->clock.lost_idle_ns += c->clock.task_ns - MIN(c->clock.pelt_ns, c->clock.task_ns);
        c->clock.pelt_ns = c->clock.task_ns;
}

/*
 * update_rq_clock_pelt(): brings @c's clock to @now_ns with the state it had since the last update. Busy, the
 * elapsed time is scaled "to reflect the real amount of computation" (cap_scale() by capacity, then by
 * frequency); idle, clock_pelt is synced to the task clock. A late time (an event older than the clock)
 * leaves it alone.
 */
static void cpu_clock_update(DemandCpu *c, uint64_t now_ns) {
        uint64_t delta;

        if (now_ns <= c->clock.task_ns)
                return;
        /*
         * The kernel syncs the clock when the idle task is picked, after the dequeue's cpufreq hook; doing it at
         * the first later update keeps every evaluation at the switch itself on the pre-idle clock.
         */
        if (c->clock.idle_pending) {
                cpu_clock_enter_idle(c);
                c->clock.idle_pending = false;
        }
        delta = now_ns - c->clock.task_ns;
        c->clock.task_ns = now_ns;
        if (c->curr_pid == 0) {
                c->clock.pelt_ns = now_ns;
                return;
        }
        delta = (delta * c->cpu_scale) >> PELT_SCALE_SHIFT;
        delta = (delta * c->freq_scale) >> PELT_SCALE_SHIFT;
        c->clock.pelt_ns += delta;
}

/* ---- per-task signals ---- */

/*
 * __update_load_avg_se(): util grows while the task runs (cfs_rq->curr == se), runnable_avg while it is
 * queued, on its CPU's PELT clock. A recomputed util_avg clears UTIL_AVG_UNCHANGED (cfs_se_util_change()).
 * RT tasks have no CFS entity activity: their signals only decay. A task without a CPU yet runs on wall time.
 */
void dm_task_advance(Demand *d, Task *k, uint64_t now_ns) {
        uint64_t t = now_ns;

        if (dm_cpu_valid(d, k->cpu)) {
                DemandCpu *c = &d->cpus[k->cpu];

                cpu_clock_update(c, now_ns);
                t = dm_pelt_clock_now(&c->clock);
        }
        if (pelt_update(&k->util, t, k->running && !k->rt))
                k->util_avg_unchanged = false;
        (void) pelt_update(&k->runnable, t, k->on_rq && !k->rt);
        (void) pelt_update(&k->load, t, k->on_rq && !k->rt);
}

/*
 * The kernel picks the idle task only when the CPU's run queues are empty, so a task the model still has queued
 * on a CPU that went idle since it was enqueued left without a recorded dequeue (a lost switch, platform.md):
 * it is taken as dequeued (its util_est and counts were dropped with the CPU's at idle entry).
 */
void dm_task_sync_rq(Demand *d, Task *k) {
        if (!k || !k->on_rq || !dm_cpu_valid(d, k->cpu) || k->rq_epoch == d->cpus[k->cpu].epoch)
                return;
        k->on_rq = k->running = false;
        k->queued_rt = k->queued_stop = false;
        k->queued_rule = -1;
        k->util_est_enqueued = 0;
}

Task *dm_task_get(Demand *d, int32_t pid) {
        Task *k = task_table_get(d->tasks, pid);

        dm_task_sync_rq(d, k);
        return k;
}

int dm_task_lookup_or_add(Demand *d, int32_t pid, uint64_t now_ns, Task **ret) {
        Task *k = dm_task_get(d, pid);
        int r;

        if (!k) {
                /* Unknown tasks (started before we looked, or evicted) start at 0, like a fresh se. */
                r = task_table_add(d->tasks, pid, now_ns, &k);
                if (r < 0)
                        return r;
                pelt_reset(&k->util, now_ns);
                pelt_reset(&k->runnable, now_ns);
                pelt_reset(&k->load, now_ns);
                k->group = dm_session_group_of(d, pid);
        }
        k->last_seen_ns = now_ns;
        *ret = k;
        return 0;
}

/* Brings the CPU's clock and signals to @now_ns. Returns whether the cfs signal and (in *ret_rt) avg_rt decayed. */
bool dm_cpu_advance(Demand *d, unsigned cpu, uint64_t now_ns, bool *ret_rt) {
        DemandCpu *c = &d->cpus[cpu];
        uint64_t t;
        bool decayed, rt;

        cpu_clock_update(c, now_ns);
        /* the running task shares the CPU with queued ones: its lag falls (EEVDF), theirs grows */
        if (now_ns > c->shared_at_ns) {
                if (c->curr_cfs && c->nr_cfs >= 2)
                        c->shared_ns += now_ns - c->shared_at_ns;
                /* update_curr(): curr's vruntime grows by its run, the average V by run / entities */
                if (c->curr_cfs)
                        c->vclock_ns += (now_ns - c->shared_at_ns) / dm_root_nr(c);
                c->shared_at_ns = now_ns;
        }
        t = dm_pelt_clock_now(&c->clock);
        /* __update_load_avg_cfs_rq(): load = cfs_rq weight, runnable = h_nr_runnable, running = cfs_rq->curr */
        decayed = pelt_update(&c->pelt, t, c->curr_cfs);
        (void) pelt_update(&c->runnable, t, MAX(c->nr_cfs, (unsigned) c->curr_cfs));
        /* load = cfs_rq->load.weight: the same count at nice 0 (a task group's entity counts as its tasks here),
         * and the delayed ones (dm_task_dequeue()) */
        (void) pelt_update(&c->load, t, MAX(c->nr_cfs, (unsigned) c->curr_cfs) + c->delayed.nr);
        /* update_rt_rq_load_avg(): running = the curr is RT */
        rt = pelt_update(&c->rt, t, c->curr_rt);
        /* the task groups' cfs_rqs and entities on this CPU, on the same clock */
        dm_groups_advance(d, cpu, t);
        if (ret_rt)
                *ret_rt = rt;
        return decayed;
}

bool demand_advance(Demand *d, unsigned cpu, uint64_t now_ns) {
        DemandCpu *c;
        bool decayed;

        if (cpu >= d->n_cpus)
                return false;
        c = &d->cpus[cpu];
        decayed = dm_cpu_advance(d, cpu, now_ns, NULL);
        c->updates += decayed;
        if (c->curr_pid != 0) {
                Task *k = task_table_get(d->tasks, c->curr_pid);

                if (k && k->cpu == (int) cpu)
                        dm_task_advance(d, k, now_ns);
        }
        return decayed;
}

void demand_set_freq_scale(Demand *d, unsigned cpu, uint64_t now_ns, unsigned freq_scale) {
        if (cpu >= d->n_cpus)
                return;
        /* The clock so far ran at the old frequency: account it before switching scales. */
        (void) demand_advance(d, cpu, now_ns);
        d->cpus[cpu].freq_scale = MIN(freq_scale, PELT_SCALE);
}

/* ---- attach, detach, enqueue, dequeue ---- */

/* Takes a task's util out of its CPU's signal: detach_entity_load_avg() for a queued task moved by load
 * balancing, the removed_* path (remove_entity_load_avg()) for one that left while asleep or exited. */
void dm_task_detach(Demand *d, Task *k, uint64_t now_ns, bool lazy) {
        DemandCpu *c;

        if (!k->attached || !dm_cpu_valid(d, k->cpu))
                return;
        c = &d->cpus[k->cpu];
        (void) demand_advance(d, (unsigned) k->cpu, now_ns);
        dm_task_advance(d, k, now_ns);
        k->attached = false;
        if (k->attached_group != TASK_GROUP_ROOT) {
                /* In its task group's cfs_rq: the root learns at once of a detach, lazily of a removal. */
                c->updates += dm_group_detach(d, k, lazy) && !lazy;
                return;
        }
        c->updates++;
        if (lazy) {
                pelt_remove(&c->pelt, k->util.util_avg);
                pelt_remove(&c->runnable, k->runnable.util_avg);
                pelt_remove(&c->load, k->load.util_avg);
        } else {
                pelt_detach(&c->pelt, &k->util);
                pelt_detach(&c->runnable, &k->runnable);
                pelt_detach(&c->load, &k->load);
        }
        k->attached = false;
}

static void task_attach(Demand *d, Task *k, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[k->cpu];

        /*
         * attach_entity_load_avg() aligns the task's window on the CPU's, which must be at now. The task is not
         * advanced in the new CPU's clock first: its signals were brought to now in its old CPU's clock when it
         * left (the kernel's se->avg.last_update_time = 0 on migration: nothing more decays).
         */
        (void) demand_advance(d, (unsigned) k->cpu, now_ns);
        c->updates++;
        k->attached = true;
        /* In its task group's cfs_rq (demand-groups.c): the root gets what the group's entity propagates. */
        if (dm_group_attach(d, k))
                return;
        pelt_attach(&c->pelt, &k->util);
        pelt_attach(&c->runnable, &k->runnable);
        pelt_attach(&c->load, &k->load);
}

/*
 * setsid() → sched_autogroup_create_attach() → autogroup_move_group() → sched_move_task() (kernel/sched/core.c):
 * a queued task is dequeued, its entity detached from the old group's cfs_rq and attached to the new one's
 * (task_change_group_fair(): detach_task_cfs_rq(), attach_task_cfs_rq(), kernel/sched/fair.c), and enqueued again.
 */
void dm_task_change_group(Demand *d, Task *k, int32_t group, uint64_t now_ns) {
        bool moving = d->groups_on && k->attached && dm_cpu_valid(d, k->cpu);
        bool queued = moving && k->on_rq && !k->rt;

        if (queued)
                d->cpus[k->cpu].updates += dm_group_touch(d, k, -1);
        if (moving)
                dm_task_detach(d, k, now_ns, false);
        k->group = group;
        if (moving)
                task_attach(d, k, now_ns);
        if (queued)
                d->cpus[k->cpu].updates += dm_group_touch(d, k, 1);
}

/*
 * do_exit() → sched_autogroup_exit_task() → sched_move_task(): the exiting task goes to the root's cfs_rq, out of its
 * task group, or from the root to the root, which the kernel does all the same (detached and attached again: what
 * the task ran since its last period boundary leaves the root's sum, attach_entity_load_avg() giving back only
 * util_avg x divider; docs/fidelity.md, session 19).
 */
void dm_task_exit_move(Demand *d, Task *k, uint64_t now_ns) {
        if (dm_task_grouped(d, k)) {
                dm_task_change_group(d, k, TASK_GROUP_ROOT, now_ns);
                return;
        }
        if (!k->attached || !dm_cpu_valid(d, k->cpu))
                return;
        dm_task_detach(d, k, now_ns, false);
        task_attach(d, k, now_ns);
}

int demand_task_set_session(Demand *d, int32_t pid, int32_t sid, uint64_t now_ns) {
        Task *k;
        int r;

        if (pid <= 0 || sid < 0)
                return -EINVAL;
        r = dm_session_store(d, pid, sid);
        if (r < 0)
                return r;
        k = dm_task_get(d, pid);
        if (!k)
                return 0;
        /* k->group 0: not known, the task heads its own (demand-groups.c, task_group_id()) */
        if ((k->group != 0 ? k->group : k->pid) == dm_session_group(sid))
                k->group = dm_session_group(sid);
        else
                dm_task_change_group(d, k, dm_session_group(sid), now_ns);
        return 0;
}

/*
 * The stopper of @cpu: the per-CPU kthread "migration/N" (kernel/stop_machine.c, .thread_comm =
 * "migration/%u") that moves running tasks (sched_setaffinity(), sched_exec(), active balancing). It reports
 * prio 0 like a SCHED_FIFO 99 task, but runs in stop_sched_class (kernel/sched/stop_task.c), never on the
 * rt_rq: rt_rq_is_runnable() in effective_cpu_util() (kernel/sched/syscalls.c; core.c before 6.11) misses it, so
 * schedutil does not go to the maximum for it. Measured here: 20 `taskset -c 1` runs woke migration/0 21
 * times, and taking it for RT raised policy0 to the maximum 25 times. Like an RT task it is not CFS either
 * (cfs_rq->curr is NULL while it runs). A task elsewhere that merely borrows the name is not it.
 */
static bool comm_is_stopper(const char *comm, int cpu) {
        const char *n;
        char *end;
        long v;

        if (strncmp(comm, STOPPER_COMM_PREFIX, strlen(STOPPER_COMM_PREFIX)) != 0)
                return false;
        n = comm + strlen(STOPPER_COMM_PREFIX);
        if (*n < '0' || *n > '9')
                return false;
        v = strtol(n, &end, 10);
        return *end == '\0' && v == cpu;
}


/*
 * ---- per-process rules (config.h) ----
 *
 * A task's rule is matched on the name the events print for it (comm), again whenever that name changes
 * (exec, prctl(PR_SET_NAME)) or the rule set does, unless the live daemon pinned it from what the proc connector
 * knows (exe, cgroup: demand_task_set_rule()). Each CPU counts its queued tasks per rule, as the kernel's rq
 * counts its tasks per uclamp bucket (uclamp_rq_inc()/uclamp_rq_dec(), kernel/sched/core.c), so that
 * demand_cpu_clamp() is the max over the runnable tasks' clamps.
 */
const TaskClamp *dm_task_rule(const Demand *d, const Task *k) {
        if (k->rule < 0 || !d->rules || (unsigned) k->rule >= d->rules->n)
                return NULL;
        return &d->clamps[k->rule];
}

/* FNV-1a of a task name, never 0 (0 is "not matched yet"). */
static uint32_t comm_hash(const char *comm) {
        uint32_t h = 2166136261u;

        for (size_t i = 0; i < TASK_COMM_LEN && comm[i] != '\0'; i++)
                h = (h ^ (uint8_t) comm[i]) * 16777619u;
        return h | 1;
}

void dm_task_unqueue_rule(Demand *d, DemandCpu *c, Task *k) {
        if (k->queued_rule < 0)
                return;
        c->nr_rule[k->queued_rule] -= c->nr_rule[k->queued_rule] > 0;
        k->queued_rule = -1;
}

void dm_cpu_clear_rules(DemandCpu *c) {
        memset(c->nr_rule, 0, sizeof(c->nr_rule));
}

/* Gives @k rule @rule (-1: none); a queued task is requeued so that its CPU's counts follow. */
void dm_task_set_rule(Demand *d, Task *k, int rule, uint64_t now_ns) {
        int queued_on = k->on_rq && dm_cpu_valid(d, k->cpu) ? k->cpu : -1;

        if (k->rule == rule)
                return;
        if (queued_on >= 0)
                dm_task_dequeue(d, k, now_ns, false);
        k->rule = (int8_t) rule;
        if (queued_on >= 0)
                dm_task_enqueue(d, k, queued_on, now_ns);
}

/* Matches @k's rule on @comm when it is new to the task or to the rule set. Returns whether @k has a rule. */
static bool task_match_rule(Demand *d, Task *k, const char *comm, uint64_t now_ns) {
        uint32_t h;

        if (!d->rules || d->rules->n == 0)
                return false;
        if (comm[0] != '\0' && !k->rule_pinned) {
                h = comm_hash(comm);
                if (h != k->comm_hash || k->rule_gen != d->rules_gen) {
                        k->comm_hash = h;
                        k->rule_gen = d->rules_gen;
                        dm_task_set_rule(d, k, rules_match(d->rules, comm, NULL, NULL), now_ns);
                }
        }
        return dm_task_rule(d, k) != NULL;
}

/*
 * The scheduling class a task was last seen in, from the prio (and comm) a tracepoint printed for it. A task
 * leaving CFS (sched_setscheduler(), PI boosting) takes its util out of its CPU's cfs signal at once:
 * switched_from_fair() → detach_task_cfs_rq() (kernel/sched/fair.c); back in CFS it is attached again at its
 * next enqueue.
 */
void dm_task_set_class(Demand *d, Task *k, int32_t prio, const char *comm, int cpu, uint64_t now_ns) {
        bool ignored = task_match_rule(d, k, comm, now_ns) && dm_task_rule(d, k)->ignore;
        bool rt = prio < MAX_RT_PRIO || ignored, stop = (rt && comm_is_stopper(comm, cpu)) || ignored;
        int queued_on = k->on_rq && dm_cpu_valid(d, k->cpu) ? k->cpu : -1;

        dm_task_guess_group(d, k, comm);
        if (rt == k->rt && stop == k->stop)
                return;
        /* __sched_setscheduler()/rt_mutex_setprio(): a queued task is dequeued from its old class, enqueued in the new. */
        if (queued_on >= 0)
                dm_task_dequeue(d, k, now_ns, false);
        if (rt && !k->rt && k->attached)
                dm_task_detach(d, k, now_ns, false);
        k->rt = rt;
        k->stop = stop;
        if (queued_on >= 0)
                dm_task_enqueue(d, k, queued_on, now_ns);
}

/*
 * A new task, or one that arrives from another CPU, starts on this CPU's PELT clock where its signals stood when it left
 * the old one (a new task: where post_init_entity_util_avg() set them): migrate_task_rq_fair()
 * (kernel/sched/fair.c) sets se->avg.last_update_time = 0, as a new entity has it, and update_load_avg(DO_ATTACH)
 * then attaches it without aging it. The two CPUs' clock_pelt differ (a busy CPU's
 * runs behind its task clock by its frequency and capacity scaling), so aging it across from the old clock to
 * the new one took up to the whole difference off a task that had just run: 400 ms at full speed on a CPU whose
 * policy started low, then moved to an idle CPU, arrived with util 335 instead of ~1020 (issue 25).
 */
static void task_rebase(Demand *d, Task *k) {
        uint64_t t = dm_cpu_pelt_now(d, (unsigned) k->cpu);

        k->util.last_update_time_ns = t;
        k->runnable.last_update_time_ns = t;
        k->load.last_update_time_ns = t;
        k->clock_unset = false;
}

/* Takes back a util_est added at sched_stat_iowait (demand_iowait_enqueue()) whose enqueue never came there. */
void dm_task_drop_early_util_est(Demand *d, Task *k) {
        DemandCpu *c;

        if (!k->util_est_early)
                return;
        k->util_est_early = false;
        /* An idle entry since (a new epoch) emptied the CPU's sum already. */
        if (dm_cpu_valid(d, k->cpu) && d->cpus[k->cpu].epoch == k->rq_epoch) {
                c = &d->cpus[k->cpu];
                c->util_est_sum -= MIN(c->util_est_sum, k->util_est_enqueued);
        }
        k->util_est_enqueued = 0;
}

/* Whether @k's util_est is in @cpu's sum already, from its sched_stat_iowait (else any such addition is undone). */
static bool task_take_early_util_est(Demand *d, Task *k, int cpu) {
        if (k->util_est_early && k->cpu == cpu && !k->rt && d->cpus[cpu].epoch == k->rq_epoch) {
                k->util_est_early = false;
                return true;
        }
        dm_task_drop_early_util_est(d, k);
        return false;
}

/* enqueue_task_fair() / enqueue_task_rt() of @k on @cpu. */
void dm_task_enqueue(Demand *d, Task *k, int cpu, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];
        bool early = task_take_early_util_est(d, k, cpu);

        (void) demand_advance(d, (unsigned) cpu, now_ns);   /* the counts change below */
        if (k->cpu != cpu) {
                /* set_task_cpu() without a sched_migrate_task we saw: same as a migration while asleep. */
                dm_task_detach(d, k, now_ns, true);
                k->clock_unset = true;
                k->cpu = cpu;
        }
        if (k->clock_unset)
                task_rebase(d, k);
        else
                dm_task_advance(d, k, now_ns);
        k->on_rq = true;
        k->rq_epoch = c->epoch;
        k->queued_rt = k->rt && !k->stop;
        k->queued_stop = k->stop;
        if (!k->stop && dm_task_rule(d, k)) {
                k->queued_rule = k->rule;
                c->nr_rule[k->rule]++;
        }
        if (k->rt) {
                /* enqueue_top_rt_rq() kicks cpufreq (kernel/sched/rt.c), __add_running_bw() for DL (deadline.c);
                 * the stopper's class does not. */
                c->nr_rt += k->queued_rt;
                c->updates += k->queued_rt;
                return;
        }
        if (!k->attached)
                task_attach(d, k, now_ns);
        /* enqueue_entity() of its group's entity: the group's update, then one more queued task there */
        c->updates += dm_group_touch(d, k, +1);
        dm_root_enqueue(c, k);
        c->nr_cfs++;
        /* util_est_enqueue(): cfs_rq->avg.util_est += _task_util_est(p), unless sched_stat_iowait did it already */
        if (early)
                return;
        k->util_est_enqueued = k->util_est;
        c->util_est_sum += k->util_est_enqueued;
}

/*
 * A task made runnable on an idle CPU runs there at once: the idle task is always preempted by a wake-up
 * (check_preempt_curr() → resched_curr() on the idle class, kernel/sched/idle.c). So the CPU is busy from the
 * enqueue on, whether or not its switch-in is recorded: docs/platform.md measured that this VM's kernel drops
 * sched events raised from an idle CPU 1, switch-ins from idle included. A recorded switch only confirms it.
 */
void dm_task_run_if_idle(Demand *d, Task *k, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[k->cpu];

        if (c->curr_pid != 0 || !k->on_rq || k->running)
                return;
        (void) demand_advance(d, (unsigned) k->cpu, now_ns);   /* close the idle span */
        c->idle_calls++;
        k->running = true;
        c->curr_pid = k->pid;
        c->curr_cfs = !k->rt;
        c->curr_rt = k->rt && !k->stop;
        c->seen_ns = now_ns;
        c->curr_inferred = true;
        /* set_next_entity(): the pick updates its group (and the group's entity) */
        if (!k->rt)
                c->updates += dm_group_touch(d, k, 0);
}

/* dequeue_task_fair() / dequeue_task_rt() of @k; @sleep: a dequeue-to-sleep (the util_est sample point). */
void dm_task_dequeue(Demand *d, Task *k, uint64_t now_ns, bool sleep) {
        DemandCpu *c = &d->cpus[k->cpu];
        unsigned ewma;
        bool stored;

        (void) demand_advance(d, (unsigned) k->cpu, now_ns);   /* the counts change below */
        dm_task_advance(d, k, now_ns);
        k->on_rq = false;
        dm_task_unqueue_rule(d, c, k);
        if (k->queued_rt || k->queued_stop) {
                /* dequeue_rt_entity() ends in enqueue_top_rt_rq(), which kicks cpufreq; DL: __sub_running_bw(). */
                if (k->queued_rt) {
                        c->nr_rt -= c->nr_rt > 0;
                        c->updates++;
                }
                k->queued_rt = k->queued_stop = false;
                return;
        }
        c->updates += dm_group_touch(d, k, -1);
        if (sleep && !d->no_delayed_dequeue) {
                dm_group_sleep(d, k);
                dm_root_sleep(d, c, k);
        } else
                dm_root_leave(d, c, k);
        c->nr_cfs -= c->nr_cfs > 0;
        /* util_est_dequeue(): sub_positive(&cfs_rq->avg.util_est, _task_util_est(p)) */
        c->util_est_sum -= MIN(c->util_est_sum, k->util_est_enqueued);
        k->util_est_enqueued = 0;
        if (!sleep)
                return;
        ewma = util_est_update(k->util_est, k->util_avg_unchanged, k->util.util_avg, k->runnable.util_avg,
                               c->cpu_scale, &stored);
        if (stored) {
                k->util_est = ewma;
                k->util_avg_unchanged = true;
        }
}

/* A task moves from its CPU to @dest (sched_migrate_task, or a wake-up on another CPU). */
void dm_task_migrate(Demand *d, Task *k, int dest, uint64_t now_ns) {
        bool queued = k->on_rq;

        dm_task_drop_early_util_est(d, k);
        if (queued)
                dm_task_dequeue(d, k, now_ns, false);
        dm_task_detach(d, k, now_ns, !queued);
        k->running = false;
        k->clock_unset = k->clock_unset || k->cpu != dest;
        k->cpu = dest;
        if (queued)
                dm_task_enqueue(d, k, dest, now_ns);
}
