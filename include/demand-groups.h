/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "demand.h"
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
void dm_task_guess_group(Demand *d, Task *k, const char *comm);
unsigned dm_task_initial_util(Demand *d, const Task *k, int cpu);
void dm_groups_advance(Demand *d, unsigned cpu, uint64_t pelt_now);
bool dm_group_attach(Demand *d, Task *k);
bool dm_group_detach(Demand *d, Task *k, bool lazy);
bool dm_group_touch(Demand *d, Task *k, int delta_queued);
void dm_group_sleep(Demand *d, Task *k);
bool dm_groups_blocked_update(Demand *d, unsigned cpu);
bool dm_groups_busy_balance(Demand *d, unsigned cpu, uint64_t now_ns);
void dm_groups_cpu_empty(Demand *d, unsigned cpu);
void dm_groups_free(Demand *d);
