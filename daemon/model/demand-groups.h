/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "demand-types.h"
#include "model.h"
#include "task-table.h"

/*
 * demand-groups.c: task groups (autogroup). Each returns whether the root cfs_rq's signal changed (the caller counts
 * an update). dm_group_attach()/dm_group_detach() return false, and do nothing, for a task in the root group.
 */
bool dm_task_grouped(const Demand *d, const Task *k);
void dm_task_inherit_group(Demand *d, Task *child, int32_t parent_pid);
/* Sessions said before their tasks are seen (demand_task_set_session()), by pid. */
int dm_session_store(Demand *d, int32_t pid, int32_t sid);
int32_t dm_session_group(int32_t sid);                     /* session @sid's group: 0 is the root's */
int32_t dm_session_group_of(const Demand *d, int32_t pid); /* @pid's session's group, 0 if not said */
void dm_session_forget_slow(Demand *d, int32_t pid);
void dm_task_guess_group_slow(Demand *d, Task *k, const char *comm);
unsigned dm_task_initial_util(Demand *d, const Task *k, int cpu);
void dm_groups_advance_slow(Demand *d, unsigned cpu, uint64_t pelt_now);
bool dm_group_attach(Demand *d, Task *k);
bool dm_group_detach_slow(Demand *d, Task *k, bool lazy);
bool dm_group_touch_slow(Demand *d, Task *k, int delta_queued);
void dm_group_sleep_slow(Demand *d, Task *k);
void dm_group_ran_slow(Demand *d, Task *k, uint64_t run_ns);
void dm_group_pick_task_slow(Demand *d, Task *k, uint64_t running_ns);
void dm_groups_pick_slow(Demand *d, unsigned cpu);
bool dm_groups_blocked_update_slow(Demand *d, unsigned cpu);
bool dm_groups_busy_balance(Demand *d, unsigned cpu, uint64_t now_ns);
void dm_groups_cpu_empty_slow(Demand *d, unsigned cpu);
void dm_groups_free(Demand *d);

/*
 * The entry points the model's event path calls on every event check inline whether a group is involved at all
 * (none exists while autogroup is off, and a task attached to the root cfs_rq has none), so that without groups
 * that path costs no call and does not leave demand.c: the out-of-line halves above are demand-groups.c's.
 */
/* At a task's exit: its session, if one was said, is forgotten. */
static inline void dm_session_forget(Demand *d, int32_t pid) {
        if (d->n_sessions > 0)
                dm_session_forget_slow(d, pid);
}

static inline void dm_task_guess_group(Demand *d, Task *k, const char *comm) {
        if (d->groups_on)
                dm_task_guess_group_slow(d, k, comm);
}

static inline void dm_groups_advance(Demand *d, unsigned cpu, uint64_t pelt_now) {
        if (d->n_groups > 0)
                dm_groups_advance_slow(d, cpu, pelt_now);
}

static inline bool dm_group_detach(Demand *d, Task *k, bool lazy) {
        return k->attached_group != TASK_GROUP_ROOT && dm_group_detach_slow(d, k, lazy);
}

static inline bool dm_group_touch(Demand *d, Task *k, int delta_queued) {
        return k->attached_group != TASK_GROUP_ROOT && dm_group_touch_slow(d, k, delta_queued);
}

static inline void dm_group_sleep(Demand *d, Task *k) {
        if (k->attached_group != TASK_GROUP_ROOT)
                dm_group_sleep_slow(d, k);
}

/* @k ran @run_ns on its CPU until now (its switch-out). */
static inline void dm_group_ran(Demand *d, Task *k, uint64_t run_ns) {
        if (k->attached_group != TASK_GROUP_ROOT)
                dm_group_ran_slow(d, k, run_ns);
}

/* @k is picked on its CPU: at its switch-in (@running_ns 0), or again @running_ns into its run. */
static inline void dm_group_pick_task(Demand *d, Task *k, uint64_t running_ns) {
        if (k->attached_group != TASK_GROUP_ROOT)
                dm_group_pick_task_slow(d, k, running_ns);
}

static inline void dm_groups_pick(Demand *d, unsigned cpu) {
        if (d->cpus[cpu].groups_delayed_only)
                dm_groups_pick_slow(d, cpu);
}

static inline bool dm_groups_blocked_update(Demand *d, unsigned cpu) {
        return d->n_groups > 0 && dm_groups_blocked_update_slow(d, cpu);
}

static inline void dm_groups_cpu_empty(Demand *d, unsigned cpu) {
        if (d->n_groups > 0)
                dm_groups_cpu_empty_slow(d, cpu);
}
