/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The demand model's task table: per-task scheduler state keyed by pid (the TID the sched tracepoints
 * print), bounded. When full, the least recently seen task that is neither runnable nor running is evicted
 * (and counted): its utilisation stays in its CPU's signal as blocked load that decays, as the kernel keeps
 * a sleeping task's contribution; if it comes back it starts over as an unknown task (util 0).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pelt.h"

#define TASK_TABLE_DEFAULT_MAX 65536u

#define TASK_GROUP_ROOT INT32_C(-1) /* the root task group: kernel threads, init (demand-groups.c) */

typedef struct Task {
        int32_t pid;
        int cpu;                  /* task_cpu(): the CPU it last ran or was queued on */
        bool on_rq;               /* enqueued (runnable or running) */
        bool running;             /* cfs_rq->curr / rq->curr on its CPU */
        bool rt;                  /* last seen with prio < 100 (RT, or DL which prints -1): not PELT-modelled */
        bool stop;                /* of those, the CPU's stopper (stop_sched_class): not RT demand either */
        bool queued_rt;           /* counted in its CPU's nr_rt at enqueue (prio can change while queued) */
        bool queued_stop;         /* enqueued as the stopper: in neither the cfs nor the rt accounting */
        bool attached;            /* its util is part of its CPU's cfs signal (attach_entity_load_avg()) */
        bool clock_unset;         /* new, or moved to another CPU: se->avg.last_update_time == 0, attached unaged */
        bool util_avg_unchanged;  /* UTIL_AVG_UNCHANGED: PELT not recomputed since util_est was stored */
        PeltSignal util;          /* se->avg util_sum/util_avg */
        PeltSignal runnable;      /* se->avg runnable_avg: "running" while on_rq (for the util_est skip rule) */
        PeltSignal load;          /* se->avg load_avg at nice 0 (weight 1024): runnable_avg's signal, but a new task
                                   * starts at 1024 (init_entity_runnable_average()); only its group's cfs_rq uses it */
        unsigned util_est;        /* p->se.avg.util_est (6.8+: the ewma alone) */
        unsigned util_est_enqueued; /* what util_est_enqueue() added to the CPU's sum, to take back exactly */
        bool util_est_early;      /* util_est_enqueue() done at sched_stat_iowait, before the enqueue's sched_wakeup:
                                   * in the sum of CPU cpu for idle epoch rq_epoch (demand_iowait_enqueue()) */
        uint64_t last_seen_ns;    /* for eviction */
        uint32_t rq_epoch;        /* its CPU's idle epoch when it was enqueued (see demand.c task_sync_rq()) */
        uint32_t wakeups;         /* sched_wakeup*s seen (saturating): how often it would wake the daemon */
        uint32_t comm_hash;       /* of the name its rule was matched on (config.h), 0 = not matched yet */
        uint16_t rule_gen;        /* the rule set's generation it was matched against */
        int8_t rule;              /* index of its rule in the rule set, -1 = none */
        int8_t queued_rule;       /* the rule counted in its CPU's clamp counts at enqueue, -1 = none */
        bool rule_pinned;         /* set by demand_task_set_rule() (exe/cgroup known): names do not override it */
        int32_t group;            /* its task group (demand-groups.c): TASK_GROUP_ROOT, its session's key (a pid),
                                   * or 0 = not known (a group of its own, keyed by its pid) */
        int32_t attached_group;   /* where its util is attached while attached: TASK_GROUP_ROOT = the root cfs_rq */
        bool delayed;             /* went to sleep still queued on its cfs_rq, in its epoch delay_epoch (DelayedTasks) */
        bool dead;                /* exited while running: removed at its last switch-out (demand-events.c) */
        bool exit_moved;          /* dead, and sched_move_task() of its exit seen (task_exit_move()) */
        uint32_t delay_epoch;
        uint64_t run_start_ns;    /* its last switch-in: a sleep's run, for its lag (dm_group_sleep_slow()) */
        uint64_t vmark_ns;        /* its CPU's vclock_ns when lag_ns was last brought up (demand-lag.c) */
        uint64_t shared_start_ns; /* its CPU's shared_ns at its switch-in */
        uint64_t slice_run_ns;    /* what it ran since its deadline was set, up to slice_mark_ns (slice_ended()) */
        uint64_t slice_mark_ns;   /* its switch-in, or the last deadline set while it ran */
        int64_t lag_ns;           /* its EEVDF lag on the root as time at vmark_ns: V - its vruntime (demand-lag.c) */
        int32_t next;             /* hash chain / free list (index), -1 = end */
} Task;

typedef struct TaskTable TaskTable;

/* @max_tasks: the bound (0 = TASK_TABLE_DEFAULT_MAX). */
int task_table_new(size_t max_tasks, TaskTable **ret);
TaskTable *task_table_free(TaskTable *t);

/* The task with @pid, or NULL. */
Task *task_table_get(TaskTable *t, int32_t pid);
/*
 * Adds a zeroed task (cpu -1) for @pid, which must not be present. When the table is full it evicts the least
 * recently seen sleeping task first; -ENOSPC when every task is runnable, -ENOMEM on allocation failure.
 */
int task_table_add(TaskTable *t, int32_t pid, uint64_t now_ns, Task **ret);
/* Forgets @pid (no-op when absent). */
void task_table_remove(TaskTable *t, int32_t pid);

size_t task_table_size(const TaskTable *t);
/* Calls @fn for every task, in no particular order; @fn must not add or remove tasks. */
void task_table_foreach(TaskTable *t, void (*fn)(Task *k, void *userdata), void *userdata);
uint64_t task_table_evictions(const TaskTable *t);
