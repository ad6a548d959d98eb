/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The demand model's state: its CPUs' clocks and signals, its task groups, the Demand itself. Shared by the model's
 * files through daemon/model/demand-internal.h; demand-groups.c, which demand.c calls, includes only this and its own
 * header, so that the two depend one way. Not for anyone outside the model: its API is include/model.h.
 */

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "macro.h"
#include "model.h"
#include "pelt.h"
#include "task-table.h"

/* rq->clock_task, rq->clock_pelt and rq->lost_idle_time (kernel/sched/pelt.h). */
typedef struct PeltClock {
        uint64_t task_ns;         /* the time the clock was last brought up to */
        uint64_t pelt_ns;         /* clock_pelt: runs at cpu_scale x freq_scale while busy, = task_ns while idle */
        uint64_t lost_idle_ns;    /* idle time a saturated CPU could not have had at full speed */
        bool idle_pending;        /* went idle at task_ns: sync at the next update (see cpu_clock_update()) */
} PeltClock;

static inline uint64_t dm_pelt_clock_now(const PeltClock *clock) {
        return clock->pelt_ns - MIN(clock->lost_idle_ns, clock->pelt_ns);
}

/*
 * EEVDF delayed dequeue (6.12+, dequeue_entity(): DELAY_DEQUEUE) on one cfs_rq, the root's or a task group's: a task
 * that goes to sleep beside other queued tasks (it has just run: its lag is negative) stays on the cfs_rq, its
 * weight in cfs_rq->load.weight, until a pick finds it eligible (pick_next_entity() dequeues it then) or it is woken
 * (requeue_delayed_entity()). What it changes is the cfs_rq's load_avg, which scales a new task's initial util
 * (util_initial()). The callers say when a sleep is delayed and when a pick or the CPU's idle entry dequeues them all.
 * Eligibility (vruntime <= avg_vruntime(), kernel/sched/fair.c): the sleeper owes @lag_ns, and is eligible once
 * ran_ns has grown by it. On the root ran_ns is V itself and the lag Task.lag_ns (demand-lag.c, session 21); in a
 * group, ran_ns is the group's tasks' running time and the lag the shared part of the sleeper's last run, so with
 * one other of equal weight it is eligible once the others have run as long. Taken as one, the common case (a
 * parent and the child it forked); a pick before that leaves them (delayed_pick()).
 */
typedef struct DelayedTasks {
        uint32_t nr;              /* asleep but still queued: load only */
        uint32_t epoch;           /* bumped when they are all dequeued: a task's mark from before no longer counts */
        uint64_t ran_ns;          /* the clock their lag is paid on: V on the root, the tasks' running time in a group */
        uint64_t eligible_ns;     /* ran_ns at which the last of them is eligible */
} DelayedTasks;

/* @k's last run, from its switch-in to its switch-out (the time of its last evidence): at its sleep, its lag. */
static inline uint64_t dm_task_last_run_ns(const Task *k) {
        return k->last_seen_ns - MIN(k->last_seen_ns, k->run_start_ns);
}

static inline void delayed_add(DelayedTasks *q, Task *k, uint64_t lag_ns) {
        q->eligible_ns = MAX(q->nr > 0 ? q->eligible_ns : 0, q->ran_ns + lag_ns);
        q->nr++;
        k->delayed = true;
        k->delay_epoch = q->epoch;
}

/* A task of the cfs_rq ran @run_ns until now (its switch-out). */
static inline void delayed_ran(DelayedTasks *q, uint64_t run_ns) {
        q->ran_ns += run_ns;
}

/* @k enqueued again: requeue_delayed_entity() when it was still on this cfs_rq. */
static inline void delayed_requeue(DelayedTasks *q, Task *k) {
        if (k->delayed && k->delay_epoch == q->epoch && q->nr > 0)
                q->nr--;
        k->delayed = false;
}

/* Every delayed task is dequeued: picked at last, or the CPU went idle. */
static inline void delayed_flush(DelayedTasks *q) {
        if (q->nr == 0)
                return;
        q->nr = 0;
        q->epoch++;
}

/* A pick on the cfs_rq (a task of it switched in, or the curr picked again @running_ns into its run): the delayed ones
 * are dequeued once eligible. */
static inline void delayed_pick(DelayedTasks *q, uint64_t running_ns) {
        if (q->nr > 0 && q->ran_ns + running_ns >= q->eligible_ns)
                delayed_flush(q);
}

typedef struct DemandCpu {
        PeltClock clock;
        PeltSignal pelt;          /* the root cfs_rq util: running = a CFS task is cfs_rq->curr */
        PeltSignal runnable;      /* the root cfs_rq runnable_avg: weight = CFS tasks enqueued (h_nr_runnable) */
        PeltSignal rt;            /* rq->avg_rt: running = an RT (or DL) task is rq->curr */
        PeltSignal load;          /* the root cfs_rq load_avg: weight 1024 a queued task (nice 0), a new task's 1024 */
        unsigned util_est_sum;    /* cfs_rq->avg.util_est: Σ util_est of the enqueued CFS tasks */
        unsigned nr_rt;           /* runnable RT/DL tasks */
        unsigned nr_cfs;          /* enqueued CFS tasks, the running one included */
        uint64_t shared_ns;       /* CFS running time while another CFS task was queued: a group sleeper's lag */
        uint64_t shared_at_ns;    /* shared_ns and vclock_ns brought up to here */
        uint64_t vclock_ns;       /* V, the root's avg_vruntime(), as time at nice 0: + run / entities while a CFS
                                   * task runs, moved by a placed or leaving entity's lag (demand-lag.c) */
        int32_t curr_pid;         /* rq->curr, 0 = idle */
        uint64_t seen_ns;         /* the last evidence of curr_pid here: its switch-in, an event in its context */
        int32_t exit_move_pid;    /* a dead curr whose sched_stat_runtime may be its exit's move (exit_move_settle()) */
        bool slice_pick;          /* curr's last report ended its slice alone: a pick that may switch to nobody */
        bool curr_inferred;       /* curr_pid was woken onto the idle CPU, its switch-in not recorded yet */
        bool curr_cfs;            /* rq->curr is a CFS task (cfs_rq->curr != NULL) */
        bool curr_rt;             /* rq->curr is an RT/DL task (not the stopper) */
        uint32_t epoch;           /* idle entries: a task enqueued in an older epoch is no longer queued */
        unsigned cpu_scale;       /* arch_scale_cpu_capacity() */
        unsigned freq_scale;      /* arch_scale_freq_capacity(): cur/max x 1024 */
        uint64_t idle_calls;      /* completed idle periods: counted when the CPU leaves idle (see model.h) */
        uint64_t updates;         /* decayed, attach, detach, RT/DL enqueue or dequeue (the kernel calls cpufreq) */
        uint16_t nr_rule[RULES_MAX]; /* queued tasks (cfs or rt, counted above) per rule: the rq's uclamp buckets */
        uint16_t idle_max_util;   /* uclamp_max kept while the rq is empty (uclamp_idle_value()) */
        int8_t idle_max_rule;     /* the rule behind it, -1 = none */
        uint64_t balance_ns;      /* the last periodic blocked-load update of this busy CPU (demand-groups.c) */
        bool groups_delayed_only; /* a group's cfs_rq here may hold only delayed tasks: the next pick looks */
        DelayedTasks delayed;     /* the root cfs_rq's delayed tasks (dm_task_dequeue()) */
} DemandCpu;

/*
 * A task group's cfs_rq on one CPU and the group's entity on that CPU's root cfs_rq (demand-groups.c), with
 * autogroup: tg->cfs_rq[cpu]->avg and tg->se[cpu]->avg (kernel/sched/fair.c). The signals of a group with no
 * queued task here (blocked) are only decayed when next used, which is exact: they contributed nothing since.
 */
typedef struct GroupRq {
        PeltSignal util, runnable, load;        /* the group's cfs_rq: Σ of its tasks' signals, removals lazily */
        PeltSignal se_util, se_runnable;        /* its entity on the root: what the root holds of the group */
        uint32_t removed_util, removed_runnable, removed_load; /* gcfs_rq->removed: applied at its next update */
        uint32_t removed_nr;
        uint32_t nr_queued;                     /* the group's queued CFS tasks here (h_nr_runnable) */
        DelayedTasks delayed;                   /* its delayed tasks (dm_group_sleep_slow()) */
        bool propagate;                         /* gcfs_rq->propagate: the root learns at the entity's next update */
        bool live;                              /* its windows were started */
        uint64_t contended_shared_ns;           /* the CPU's shared_ns when a second task of the group was queued */
} GroupRq;

/* A task's session, known before the task is seen (demand_task_set_session()). */
typedef struct DemandSession {
        int32_t pid, sid;
} DemandSession;

typedef struct DemandGroup {
        int32_t id;                             /* the key of its session (a pid) */
        GroupRq *rq;                            /* one per CPU */
} DemandGroup;

struct Demand {
        unsigned n_cpus;
        uint64_t base_slice_ns;   /* sysctl_sched_base_slice for n_cpus (dm_base_slice_ns()) */
        DemandCpu *cpus;
        TaskTable *tasks;
        uint64_t silence_ns;      /* demand_cpu_silent(): 0 = the source does not report sched_stat_runtime */
        uint64_t lost_switches;   /* switches the events' context showed were lost */
        uint64_t resyncs;         /* demand_cpu_resync() calls */
        const RuleSet *rules;     /* demand_set_rules(): the caller's, NULL = none */
        TaskClamp clamps[RULES_MAX]; /* each rule's clamp (rules_clamp()): what the model applies */
        uint16_t rules_gen;       /* bumped by each demand_set_rules(): tasks are matched again */
        bool groups_on;           /* demand_set_autogroup(): tasks in per-session task groups (demand-groups.c) */
        bool no_delayed_dequeue;  /* demand_set_delayed_dequeue(false): a sleeper leaves its cfs_rq at once */
        DemandGroup *groups;
        size_t n_groups, max_groups;
        DemandSession *sessions;  /* by pid; consulted when a task is first seen */
        size_t n_sessions, max_sessions;
};

/* The root cfs_rq's entities (cfs_rq->nr_queued): its queued CFS tasks, the running one and the delayed ones. */
static inline unsigned dm_root_nr(const DemandCpu *c) {
        return MAX(c->nr_cfs, (unsigned) c->curr_cfs) + c->delayed.nr;
}

/* rq_clock_pelt(): what every PELT signal of the CPU is updated with. */
static inline uint64_t dm_cpu_pelt_now(const Demand *d, unsigned cpu) {
        return dm_pelt_clock_now(&d->cpus[cpu].clock);
}
