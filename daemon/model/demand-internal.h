/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The demand model's insides, shared by its files (demand.c: clocks, signals, enqueue and dequeue;
 * demand-events.c: the scheduler events; demand-state.c: queries, rules; demand-groups.c: task groups, which
 * demand.c calls and which sees only demand-types.h and demand-groups.h). Not for anyone else: the model's
 * API is include/model.h.
 */

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "demand-groups.h"
#include "demand-types.h"
#include "macro.h"
#include "model.h"
#include "pelt.h"
#include "task-table.h"

/* include/linux/sched/prio.h: MAX_RT_PRIO. prio < 100 is RT; DL tasks are printed as -1. */
#define MAX_RT_PRIO 100
#define STOPPER_COMM_PREFIX "migration/"

/* demand.c, for demand-events.c and demand-state.c (static there before the split). */
static inline bool dm_cpu_valid(const Demand *d, int cpu) {
        return cpu >= 0 && (unsigned) cpu < d->n_cpus;
}
void dm_task_advance(Demand *d, Task *k, uint64_t now_ns);
void dm_task_sync_rq(Demand *d, Task *k);
Task *dm_task_get(Demand *d, int32_t pid);
int dm_task_lookup_or_add(Demand *d, int32_t pid, uint64_t now_ns, Task **ret);
bool dm_cpu_advance(Demand *d, unsigned cpu, uint64_t now_ns, bool *ret_rt);
void dm_task_detach(Demand *d, Task *k, uint64_t now_ns, bool lazy);
/* sched_move_task(): @k's util leaves its task group's cfs_rq for @group's (TASK_GROUP_ROOT: the root's). */
void dm_task_change_group(Demand *d, Task *k, int32_t group, uint64_t now_ns);
void dm_task_exit_move(Demand *d, Task *k, uint64_t now_ns);
const TaskClamp *dm_task_rule(const Demand *d, const Task *k);
void dm_task_unqueue_rule(Demand *d, DemandCpu *c, Task *k);
void dm_cpu_clear_rules(DemandCpu *c);
void dm_task_set_rule(Demand *d, Task *k, int rule, uint64_t now_ns);
void dm_task_set_class(Demand *d, Task *k, int32_t prio, const char *comm, int cpu, uint64_t now_ns);
void dm_task_enqueue(Demand *d, Task *k, int cpu, uint64_t now_ns);
void dm_task_drop_early_util_est(Demand *d, Task *k);
void dm_task_run_if_idle(Demand *d, Task *k, uint64_t now_ns);
void dm_task_dequeue(Demand *d, Task *k, uint64_t now_ns, bool sleep);
void dm_task_migrate(Demand *d, Task *k, int dest, uint64_t now_ns);

/* demand-lag.c: EEVDF's lag on the root cfs_rq, for its delayed sleepers. */
void dm_root_lag_switch_in(DemandCpu *c, Task *k);
void dm_root_lag_switch_out(DemandCpu *c, Task *k, uint64_t run_ns);
void dm_root_leave(const Demand *d, DemandCpu *c, Task *k);
void dm_root_sleep(const Demand *d, DemandCpu *c, Task *k);
void dm_root_enqueue(DemandCpu *c, Task *k);
void dm_root_pick(DemandCpu *c, uint64_t now_ns);
