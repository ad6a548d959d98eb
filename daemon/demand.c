/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demand.c: the demand model (include/demand.h): per-CPU root cfs signals, util_est sums and RT counts,
 * fed by scheduler events, over the per-task state of task-table.c. Pure, no I/O.
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
 * What is not modelled: EEVDF delayed dequeue (6.12+: a sleeping task may stay queued a while), cgroup
 * hierarchies (everything is the root cfs_rq), load_avg (only its ratio in the new-task rule, see
 * util-est.c), the DL and IRQ PELT signals (DL tasks are counted in avg_rt and ask for max, docs/fidelity.md).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "demand.h"
#include "macro.h"
#include "pelt.h"
#include "rules.h"
#include "task-table.h"
#include "util-est.h"

/* include/linux/sched/prio.h: MAX_RT_PRIO. prio < 100 is RT; DL tasks are printed as -1. */
#define MAX_RT_PRIO 100
#define STOPPER_COMM_PREFIX "migration/"

/* rq->clock_task, rq->clock_pelt and rq->lost_idle_time (kernel/sched/pelt.h). */
typedef struct PeltClock {
        uint64_t task_ns;         /* the time the clock was last brought up to */
        uint64_t pelt_ns;         /* clock_pelt: runs at cpu_scale x freq_scale while busy, = task_ns while idle */
        uint64_t lost_idle_ns;    /* idle time a saturated CPU could not have had at full speed */
        bool idle_pending;        /* went idle at task_ns: sync at the next update (see cpu_clock_update()) */
} PeltClock;

typedef struct DemandCpu {
        PeltClock clock;
        PeltSignal pelt;          /* the root cfs_rq util: running = a CFS task is cfs_rq->curr */
        PeltSignal runnable;      /* the root cfs_rq runnable_avg: weight = CFS tasks enqueued (h_nr_runnable) */
        PeltSignal rt;            /* rq->avg_rt: running = an RT (or DL) task is rq->curr */
        unsigned util_est_sum;    /* cfs_rq->avg.util_est: Σ util_est of the enqueued CFS tasks */
        unsigned nr_rt;           /* runnable RT/DL tasks */
        unsigned nr_cfs;          /* enqueued CFS tasks, the running one included */
        int32_t curr_pid;         /* rq->curr, 0 = idle */
        uint64_t seen_ns;         /* the last evidence of curr_pid here: its switch-in, an event in its context */
        bool curr_inferred;       /* curr_pid was woken onto the idle CPU, its switch-in not recorded yet */
        bool curr_cfs;            /* rq->curr is a CFS task (cfs_rq->curr != NULL) */
        bool curr_rt;             /* rq->curr is an RT/DL task (not the stopper) */
        uint32_t epoch;           /* idle entries: a task enqueued in an older epoch is no longer queued */
        unsigned cpu_scale;       /* arch_scale_cpu_capacity() */
        unsigned freq_scale;      /* arch_scale_freq_capacity(): cur/max x 1024 */
        uint64_t idle_calls;      /* completed idle periods: counted when the CPU leaves idle (see demand.h) */
        uint64_t updates;         /* the signal changed: decayed, attach, detach (where the kernel calls cpufreq) */
        uint16_t nr_rule[RULES_MAX]; /* queued tasks (cfs or rt, counted above) per rule: the rq's uclamp buckets */
        uint16_t idle_max_util;   /* uclamp_max kept while the rq is empty (uclamp_idle_value()) */
        int8_t idle_max_rule;     /* the rule behind it, -1 = none */
} DemandCpu;

struct Demand {
        unsigned n_cpus;
        DemandCpu *cpus;
        TaskTable *tasks;
        uint64_t silence_ns;      /* demand_cpu_silent(): 0 = the source does not report sched_stat_runtime */
        uint64_t lost_switches;   /* switches the events' context showed were lost */
        uint64_t resyncs;         /* demand_cpu_resync() calls */
        const RuleSet *rules;     /* demand_set_rules(): the caller's, NULL = none */
        uint16_t rules_gen;       /* bumped by each demand_set_rules(): tasks are matched again */
};

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
        for (unsigned i = 0; i < n_cpus; i++)
                d->cpus[i] = (DemandCpu) { .cpu_scale = PELT_SCALE, .freq_scale = PELT_SCALE, .idle_max_util = RULE_UTIL_MAX,
                                            .idle_max_rule = -1 };

        *ret = TAKE_PTR(d);
        return 0;
}

int demand_new(unsigned n_cpus, Demand **ret) {
        return demand_new_with_limit(n_cpus, 0, ret);
}

Demand *demand_free(Demand *d) {
        if (!d)
                return NULL;
        task_table_free(d->tasks);
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

static bool cpu_valid(const Demand *d, int cpu) {
        return cpu >= 0 && (unsigned) cpu < d->n_cpus;
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

/* rq_clock_pelt(): what every PELT signal of the CPU is updated with. */
static uint64_t cpu_pelt_now(const DemandCpu *c) {
        return c->clock.pelt_ns - MIN(c->clock.lost_idle_ns, c->clock.pelt_ns);
}

/* ---- per-task signals ---- */

/*
 * __update_load_avg_se(): util grows while the task runs (cfs_rq->curr == se), runnable_avg while it is
 * queued, on its CPU's PELT clock. A recomputed util_avg clears UTIL_AVG_UNCHANGED (cfs_se_util_change()).
 * RT tasks have no CFS entity activity: their signals only decay. A task without a CPU yet runs on wall time.
 */
static void task_advance(Demand *d, Task *k, uint64_t now_ns) {
        uint64_t t = now_ns;

        if (cpu_valid(d, k->cpu)) {
                DemandCpu *c = &d->cpus[k->cpu];

                cpu_clock_update(c, now_ns);
                t = cpu_pelt_now(c);
        }
        if (pelt_update(&k->util, t, k->running && !k->rt))
                k->util_avg_unchanged = false;
        (void) pelt_update(&k->runnable, t, k->on_rq && !k->rt);
}

/*
 * The kernel picks the idle task only when the CPU's run queues are empty, so a task the model still has queued
 * on a CPU that went idle since it was enqueued left without a recorded dequeue (a lost switch, platform.md):
 * it is taken as dequeued (its util_est and counts were dropped with the CPU's at idle entry).
 */
static void task_sync_rq(Demand *d, Task *k) {
        if (!k || !k->on_rq || !cpu_valid(d, k->cpu) || k->rq_epoch == d->cpus[k->cpu].epoch)
                return;
        k->on_rq = k->running = false;
        k->queued_rt = k->queued_stop = false;
        k->queued_rule = -1;
        k->util_est_enqueued = 0;
}

static Task *task_get(Demand *d, int32_t pid) {
        Task *k = task_table_get(d->tasks, pid);

        task_sync_rq(d, k);
        return k;
}

static int task_lookup_or_add(Demand *d, int32_t pid, uint64_t now_ns, Task **ret) {
        Task *k = task_get(d, pid);
        int r;

        if (!k) {
                /* Unknown tasks (started before we looked, or evicted) start at 0, like a fresh se. */
                r = task_table_add(d->tasks, pid, now_ns, &k);
                if (r < 0)
                        return r;
                pelt_reset(&k->util, now_ns);
                pelt_reset(&k->runnable, now_ns);
        }
        k->last_seen_ns = now_ns;
        *ret = k;
        return 0;
}

/* Brings the CPU's clock and signals to @now_ns. Returns whether the cfs signal and (in *ret_rt) avg_rt decayed. */
static bool cpu_advance(Demand *d, unsigned cpu, uint64_t now_ns, bool *ret_rt) {
        DemandCpu *c = &d->cpus[cpu];
        uint64_t t;
        bool decayed, rt;

        cpu_clock_update(c, now_ns);
        t = cpu_pelt_now(c);
        /* __update_load_avg_cfs_rq(): load = cfs_rq weight, runnable = h_nr_runnable, running = cfs_rq->curr */
        decayed = pelt_update(&c->pelt, t, c->curr_cfs);
        (void) pelt_update(&c->runnable, t, MAX(c->nr_cfs, (unsigned) c->curr_cfs));
        /* update_rt_rq_load_avg(): running = the curr is RT */
        rt = pelt_update(&c->rt, t, c->curr_rt);
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
        decayed = cpu_advance(d, cpu, now_ns, NULL);
        c->updates += decayed;
        if (c->curr_pid != 0) {
                Task *k = task_table_get(d->tasks, c->curr_pid);

                if (k && k->cpu == (int) cpu)
                        task_advance(d, k, now_ns);
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
static void task_detach(Demand *d, Task *k, uint64_t now_ns, bool lazy) {
        DemandCpu *c;

        if (!k->attached || !cpu_valid(d, k->cpu))
                return;
        c = &d->cpus[k->cpu];
        (void) demand_advance(d, (unsigned) k->cpu, now_ns);
        task_advance(d, k, now_ns);
        c->updates++;
        if (lazy) {
                pelt_remove(&c->pelt, k->util.util_avg);
                pelt_remove(&c->runnable, k->runnable.util_avg);
        } else {
                pelt_detach(&c->pelt, &k->util);
                pelt_detach(&c->runnable, &k->runnable);
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
        pelt_attach(&c->pelt, &k->util);
        pelt_attach(&c->runnable, &k->runnable);
        c->updates++;
        k->attached = true;
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

static void task_detach(Demand *d, Task *k, uint64_t now_ns, bool lazy);
static void task_enqueue(Demand *d, Task *k, int cpu, uint64_t now_ns);
static void task_dequeue(Demand *d, Task *k, uint64_t now_ns, bool sleep);

/*
 * ---- per-process rules (rules.h) ----
 *
 * A task's rule is matched on the name the events print for it (comm), again whenever that name changes
 * (exec, prctl(PR_SET_NAME)) or the rule set does, unless the live daemon pinned it from what the proc connector
 * knows (exe, cgroup: demand_task_set_rule()). Each CPU counts its queued tasks per rule, as the kernel's rq
 * counts its tasks per uclamp bucket (uclamp_rq_inc()/uclamp_rq_dec(), kernel/sched/core.c), so that
 * demand_cpu_clamp() is the max over the runnable tasks' clamps.
 */
static const Rule *task_rule(const Demand *d, const Task *k) {
        if (k->rule < 0 || !d->rules || (unsigned) k->rule >= d->rules->n)
                return NULL;
        return &d->rules->rule[k->rule];
}

/* FNV-1a of a task name, never 0 (0 is "not matched yet"). */
static uint32_t comm_hash(const char *comm) {
        uint32_t h = 2166136261u;

        for (size_t i = 0; i < TASK_COMM_LEN && comm[i] != '\0'; i++)
                h = (h ^ (uint8_t) comm[i]) * 16777619u;
        return h | 1;
}

static void task_unqueue_rule(Demand *d, DemandCpu *c, Task *k) {
        if (k->queued_rule < 0)
                return;
        c->nr_rule[k->queued_rule] -= c->nr_rule[k->queued_rule] > 0;
        k->queued_rule = -1;
}

static void cpu_clear_rules(DemandCpu *c) {
        memset(c->nr_rule, 0, sizeof(c->nr_rule));
}

/* Gives @k rule @rule (-1: none); a queued task is requeued so that its CPU's counts follow. */
static void task_set_rule(Demand *d, Task *k, int rule, uint64_t now_ns) {
        int queued_on = k->on_rq && cpu_valid(d, k->cpu) ? k->cpu : -1;

        if (k->rule == rule)
                return;
        if (queued_on >= 0)
                task_dequeue(d, k, now_ns, false);
        k->rule = (int8_t) rule;
        if (queued_on >= 0)
                task_enqueue(d, k, queued_on, now_ns);
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
                        task_set_rule(d, k, rules_match(d->rules, comm, NULL, NULL), now_ns);
                }
        }
        return task_rule(d, k) != NULL;
}

/*
 * The scheduling class a task was last seen in, from the prio (and comm) a tracepoint printed for it. A task
 * leaving CFS (sched_setscheduler(), PI boosting) takes its util out of its CPU's cfs signal at once:
 * switched_from_fair() → detach_task_cfs_rq() (kernel/sched/fair.c); back in CFS it is attached again at its
 * next enqueue.
 */
static void task_set_class(Demand *d, Task *k, int32_t prio, const char *comm, int cpu, uint64_t now_ns) {
        bool ignored = task_match_rule(d, k, comm, now_ns) && task_rule(d, k)->ignore;
        bool rt = prio < MAX_RT_PRIO || ignored, stop = (rt && comm_is_stopper(comm, cpu)) || ignored;
        int queued_on = k->on_rq && cpu_valid(d, k->cpu) ? k->cpu : -1;

        if (rt == k->rt && stop == k->stop)
                return;
        /* __sched_setscheduler()/rt_mutex_setprio(): a queued task is dequeued from its old class, enqueued in the new. */
        if (queued_on >= 0)
                task_dequeue(d, k, now_ns, false);
        if (rt && !k->rt && k->attached)
                task_detach(d, k, now_ns, false);
        k->rt = rt;
        k->stop = stop;
        if (queued_on >= 0)
                task_enqueue(d, k, queued_on, now_ns);
}

/* enqueue_task_fair() / enqueue_task_rt() of @k on @cpu. */
static void task_enqueue(Demand *d, Task *k, int cpu, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];

        (void) demand_advance(d, (unsigned) cpu, now_ns);   /* the counts change below */
        task_advance(d, k, now_ns);
        if (k->cpu != cpu) {
                /* set_task_cpu() without a sched_migrate_task we saw: same as a migration while asleep. */
                task_detach(d, k, now_ns, true);
                k->cpu = cpu;
        }
        k->on_rq = true;
        k->rq_epoch = c->epoch;
        k->queued_rt = k->rt && !k->stop;
        k->queued_stop = k->stop;
        if (!k->stop && task_rule(d, k)) {
                k->queued_rule = k->rule;
                c->nr_rule[k->rule]++;
        }
        if (k->rt) {
                c->nr_rt += k->queued_rt;
                return;
        }
        if (!k->attached)
                task_attach(d, k, now_ns);
        c->nr_cfs++;
        /* util_est_enqueue(): cfs_rq->avg.util_est += _task_util_est(p) */
        k->util_est_enqueued = k->util_est;
        c->util_est_sum += k->util_est_enqueued;
}

/*
 * A task made runnable on an idle CPU runs there at once: the idle task is always preempted by a wake-up
 * (check_preempt_curr() → resched_curr() on the idle class, kernel/sched/idle.c). So the CPU is busy from the
 * enqueue on, whether or not its switch-in is recorded: docs/platform.md measured that this VM's kernel drops
 * sched events raised from an idle CPU 1, switch-ins from idle included. A recorded switch only confirms it.
 */
static void task_run_if_idle(Demand *d, Task *k, uint64_t now_ns) {
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
}

/* dequeue_task_fair() / dequeue_task_rt() of @k; @sleep: a dequeue-to-sleep (the util_est sample point). */
static void task_dequeue(Demand *d, Task *k, uint64_t now_ns, bool sleep) {
        DemandCpu *c = &d->cpus[k->cpu];
        unsigned ewma;
        bool stored;

        (void) demand_advance(d, (unsigned) k->cpu, now_ns);   /* the counts change below */
        task_advance(d, k, now_ns);
        k->on_rq = false;
        task_unqueue_rule(d, c, k);
        if (k->queued_rt || k->queued_stop) {
                if (k->queued_rt)
                        c->nr_rt -= c->nr_rt > 0;
                k->queued_rt = k->queued_stop = false;
                return;
        }
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
static void task_migrate(Demand *d, Task *k, int dest, uint64_t now_ns) {
        bool queued = k->on_rq;

        if (queued)
                task_dequeue(d, k, now_ns, false);
        task_detach(d, k, now_ns, !queued);
        k->running = false;
        k->cpu = dest;
        if (queued)
                task_enqueue(d, k, dest, now_ns);
}

/* ---- events ---- */

static void effect_add(DemandEffect *e, int cpu) {
        for (unsigned i = 0; i < e->n_cpus; i++)
                if (e->cpus[i] == cpu)
                        return;
        if (cpu >= 0 && e->n_cpus < DEMAND_EFFECT_CPUS_MAX)
                e->cpus[e->n_cpus++] = cpu;
}

/* The CPU's previous task, if we missed its switch-out, is no longer running there. */
static void cpu_forget_curr(Demand *d, int cpu, int32_t unless_pid) {
        DemandCpu *c = &d->cpus[cpu];
        Task *k;

        if (c->curr_pid == 0 || c->curr_pid == unless_pid)
                return;
        k = task_get(d, c->curr_pid);
        if (k && k->cpu == cpu)
                k->running = false;
}

static void switch_prev(Demand *d, int cpu, const SchedEvent *ev, uint64_t now_ns) {
        Task *k;

        if (ev->sw.prev_pid == 0)
                return;
        k = task_get(d, ev->sw.prev_pid);
        if (!k || k->cpu != cpu)
                return;
        k->last_seen_ns = now_ns;
        k->running = false;
        /* prev_state R or R+ (preempted): prev stays queued; anything else went to sleep (reference §6.3). */
        if (!ev->sw.prev_runnable && k->on_rq)
                task_dequeue(d, k, now_ns, true);
        task_set_class(d, k, ev->sw.prev_prio, ev->sw.prev_comm, cpu, now_ns);
}

/* @k runs on @cpu from @now_ns (the CPU was advanced to @now_ns with its previous curr). */
static void cpu_set_curr(Demand *d, int cpu, Task *k, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];

        if (k->running && cpu_valid(d, k->cpu) && k->cpu != cpu && d->cpus[k->cpu].curr_pid == k->pid) {
                /* It runs here now, so it no longer runs there: the other CPU's switch was lost too. */
                DemandCpu *o = &d->cpus[k->cpu];

                (void) demand_advance(d, (unsigned) k->cpu, now_ns);
                o->clock.idle_pending = true;
                o->curr_pid = 0;
                o->curr_cfs = o->curr_rt = o->curr_inferred = false;
        }
        task_advance(d, k, now_ns);      /* the wait in the queue ends here */
        c->idle_calls += c->curr_pid == 0;
        if (k->on_rq && k->cpu != cpu)
                task_migrate(d, k, cpu, now_ns);    /* a migration we did not see */
        else if (!k->on_rq)
                task_enqueue(d, k, cpu, now_ns);    /* a wake-up we did not see */
        k->running = true;
        c->curr_pid = k->pid;
        c->curr_cfs = !k->rt;
        c->curr_rt = k->rt && !k->stop;
        c->seen_ns = now_ns;
        c->curr_inferred = false;
}

/* The CPU runs its idle task from now on (it was advanced to now with its previous curr). */
static void cpu_set_idle(DemandCpu *c, uint64_t now_ns) {
        /* The idle task: idle entries are what the busy-hold rule counts. */
        c->clock.idle_pending = c->curr_pid != 0;
        c->curr_pid = 0;
        c->curr_cfs = c->curr_rt = false;
        c->seen_ns = now_ns;
        c->curr_inferred = false;
        /* Nothing is runnable here any more, whatever events were lost (task_sync_rq()). */
        c->epoch++;
        cpu_clear_rules(c);
        c->nr_cfs = c->nr_rt = 0;
        c->util_est_sum = 0;
}

static int switch_next(Demand *d, int cpu, const SchedEvent *ev, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];
        Task *k;
        int r;

        if (ev->sw.next_pid == 0) {
                cpu_set_idle(c, now_ns);
                return 0;
        }
        r = task_lookup_or_add(d, ev->sw.next_pid, now_ns, &k);
        if (r < 0)
                return r;
        task_set_class(d, k, ev->sw.next_prio, ev->sw.next_comm, cpu, now_ns);
        cpu_set_curr(d, cpu, k, now_ns);
        return 0;
}

static int demand_switch(Demand *d, int cpu, const SchedEvent *ev, uint64_t now_ns) {
        /* Close the span that ends here with the state it had, then change state. */
        (void) demand_advance(d, (unsigned) cpu, now_ns);
        cpu_forget_curr(d, cpu, ev->sw.prev_pid);
        switch_prev(d, cpu, ev, now_ns);
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
static int cpu_lost_switch(Demand *d, int cpu, int32_t pid, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];
        uint64_t at_ns = MIN(MAX(c->seen_ns, c->clock.task_ns), now_ns);
        Task *k;
        int r;

        d->lost_switches++;
        if (c->curr_pid != 0) {
                (void) demand_advance(d, (unsigned) cpu, at_ns);
                cpu_forget_curr(d, cpu, pid);
                if (pid == 0) {
                        cpu_set_idle(c, at_ns);
                        return 0;
                }
                /* Another task: the queue is not empty, but what ran until now is not known. */
                c->curr_pid = 0;
                c->curr_cfs = c->curr_rt = false;
        }
        if (pid == 0)
                return 0;
        /* The new curr's run is proven from now on only. */
        (void) demand_advance(d, (unsigned) cpu, now_ns);
        r = task_lookup_or_add(d, pid, now_ns, &k);
        if (r < 0)
                return r;
        cpu_set_curr(d, cpu, k, now_ns);
        return 0;
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
        /* Woken onto the idle CPU, the task runs there next (task_run_if_idle()): until then the idle task's
         * context is no contradiction. */
        if (pid == 0 && c->curr_inferred)
                return 0;
        if (pid != c->curr_pid)
                return cpu_lost_switch(d, ev->cpu, pid, now_ns);
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
                (void) cpu_lost_switch(d, (int) cpu, 0, now_ns);
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
        /* Every task queued here is forgotten (task_sync_rq()): the next switch-in or wake-up re-adds it. */
        c->epoch++;
        cpu_clear_rules(c);
        c->nr_cfs = c->nr_rt = 0;
        c->util_est_sum = 0;
        d->resyncs++;
}

uint64_t demand_resyncs(const Demand *d) {
        return d->resyncs;
}

uint64_t demand_lost_switches(const Demand *d) {
        return d->lost_switches;
}

static void task_init_new(Demand *d, Task *k, int cpu, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];

        /* post_init_entity_util_avg() runs in wake_up_new_task() after select_task_rq() chose @cpu. */
        (void) demand_advance(d, (unsigned) cpu, now_ns);
        pelt_reset(&k->util, now_ns);
        pelt_reset(&k->runnable, now_ns);
        if (k->rt)
                return;
        k->util.util_avg = util_initial(c->pelt.util_avg, c->cpu_scale);
        /* "sa->runnable_avg = sa->util_avg" (reference §1.5); the sums are rebuilt from the averages. */
        k->runnable.util_avg = k->util.util_avg;
        k->runnable.util_sum = (uint64_t) k->runnable.util_avg * pelt_divider(&k->runnable);
        k->cpu = cpu;
}

static int demand_wakeup(Demand *d, const SchedEvent *ev, uint64_t now_ns, DemandEffect *eff) {
        int target = ev->wakeup.target_cpu, old;
        bool is_new = ev->type == SCHED_EVENT_WAKEUP_NEW;
        Task *k;
        int r;

        if (!cpu_valid(d, target))
                return -ERANGE;
        k = task_get(d, ev->wakeup.pid);
        if (k && is_new && !k->on_rq) {
                /* A recycled pid: the old task is gone (we missed its exit). */
                task_detach(d, k, now_ns, true);
                task_table_remove(d->tasks, k->pid);
        }
        r = task_lookup_or_add(d, ev->wakeup.pid, now_ns, &k);
        if (r < 0)
                return r;
        task_set_class(d, k, ev->wakeup.prio, ev->wakeup.comm, target, now_ns);
        k->wakeups += k->wakeups < UINT32_MAX;
        if (is_new && !k->on_rq)
                task_init_new(d, k, target, now_ns);

        old = k->cpu;
        if (k->on_rq && old == target)
                return 0;     /* ttwu_runnable(): already queued there, nothing changes */
        if (k->on_rq)
                task_migrate(d, k, target, now_ns);
        else
                task_enqueue(d, k, target, now_ns);
        task_run_if_idle(d, k, now_ns);
        if (old >= 0 && old != target)
                effect_add(eff, old);  /* a wake-up migration: the old CPU loses the task's util */
        effect_add(eff, target);
        return 0;
}

static int demand_migrate(Demand *d, const SchedEvent *ev, uint64_t now_ns, DemandEffect *eff) {
        int dest = ev->migrate.dest_cpu, src;
        Task *k;
        int r;

        if (!cpu_valid(d, dest) || !cpu_valid(d, ev->migrate.orig_cpu))
                return -ERANGE;
        r = task_lookup_or_add(d, ev->migrate.pid, now_ns, &k);
        if (r < 0)
                return r;
        task_set_class(d, k, ev->migrate.prio, ev->migrate.comm, dest, now_ns);
        /* Trust our own idea of where the task is; orig_cpu is task_cpu() before the move. */
        src = k->cpu >= 0 ? k->cpu : ev->migrate.orig_cpu;
        if (src == dest)
                return 0;
        if (k->cpu < 0)
                k->cpu = src;
        task_migrate(d, k, dest, now_ns);
        task_run_if_idle(d, k, now_ns);
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
        if (ev->runtime.pid == 0 || c->curr_pid == ev->runtime.pid)
                return 0;
        r = task_lookup_or_add(d, ev->runtime.pid, now_ns, &k);
        if (r < 0)
                return r;
        cpu_forget_curr(d, cpu, ev->runtime.pid);
        if (k->cpu >= 0 && k->cpu != cpu)
                k->running = false;
        cpu_set_curr(d, cpu, k, now_ns);
        return 0;
}

static void demand_exit_pid(Demand *d, int32_t pid, uint64_t now_ns, DemandEffect *eff) {
        Task *k = task_get(d, pid);

        if (!k)
                return;
        if (cpu_valid(d, k->cpu)) {
                /* task_dead_fair() → remove_entity_load_avg(); the final switch-out finds nothing to do. */
                if (k->on_rq)
                        task_dequeue(d, k, now_ns, false);
                task_detach(d, k, now_ns, true);
                effect_add(eff, k->cpu);
        }
        task_table_remove(d->tasks, pid);
}

static void demand_exit(Demand *d, const SchedEvent *ev, uint64_t now_ns, DemandEffect *eff) {
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
        if (!cpu_valid(d, ev->cpu))
                return -ERANGE;
        r = cpu_resync_context(d, ev, now_ns);
        if (r < 0)
                return r;

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

int demand_iowait_cpu(Demand *d, int32_t pid, uint64_t now_ns) {
        Task *k = task_get(d, pid);

        if (!k || !cpu_valid(d, k->cpu))
                return -ENOENT;
        k->last_seen_ns = now_ns;
        return k->cpu;
}

/* ---- state ---- */

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
        cfs = cpu_advance(d, cpu, now_ns, &rt);
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

int demand_task_info(const Demand *d, int32_t pid, DemandTaskInfo *ret) {
        const Task *k = task_table_get(d->tasks, pid);
        bool stale;

        if (!k)
                return -ENOENT;
        /* Queued in an epoch its CPU has left: no longer queued (task_sync_rq(), done lazily). */
        stale = k->on_rq && cpu_valid(d, k->cpu) && k->rq_epoch != d->cpus[k->cpu].epoch;
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
        const Rule *r = task_rule(q->d, k);
        DemandQuietTask t;
        size_t i;

        /*
         * Only CFS tasks the model has seen wake, whose every signal is small. Whether one runs now does not
         * matter (its next wake-up does), and the set stays the same while the tasks come and go.
         */
        /* A task a rule boosts is never light: its wake-ups raise its policy (rules.h). */
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
        if (k->queued_rule >= 0 && cpu_valid(d, k->cpu))
                task_unqueue_rule(d, &d->cpus[k->cpu], k);
        k->rule = -1;
        k->comm_hash = 0;
        k->rule_pinned = false;
}

void demand_set_rules(Demand *d, const RuleSet *rules) {
        task_table_foreach(d->tasks, task_forget_rule, d);
        d->rules = rules && rules->n > 0 ? rules : NULL;
        d->rules_gen++;
}

int demand_task_set_rule(Demand *d, int32_t pid, int rule, uint64_t now_ns) {
        Task *k;
        int r;

        if (!d->rules || rule < -1 || (rule >= 0 && (unsigned) rule >= d->rules->n))
                return -EINVAL;
        /* No rule for a task the model has not seen: nothing to remember (its events would match nothing either). */
        if (rule < 0 && !task_get(d, pid))
                return 0;
        r = task_lookup_or_add(d, pid, now_ns, &k);
        if (r < 0)
                return r;
        k->rule_pinned = true;
        k->rule_gen = d->rules_gen;
        task_set_rule(d, k, rule, now_ns);
        return 0;
}

int demand_task_rule(const Demand *d, int32_t pid) {
        const Task *k = task_table_get(d->tasks, pid);

        return k ? (task_rule(d, k) ? k->rule : -1) : -ENOENT;
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
                const Rule *r = &d->rules->rule[i];

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

        if (k->rule != q->rule || !task_rule(q->d, k))
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
