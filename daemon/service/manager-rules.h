/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Per-process rules in the live daemon (issue #13): what the proc connector knows of a task (its process's
 * executable and cgroup, its thread group) decides its rule, which the engine then keeps for it
 * (engine_task_set_rule()) instead of matching the name its scheduler events carry. A thread takes its
 * process's rule unless a rule matches the thread's own name. Tasks are matched when the proc connector reports
 * them (fork, exec, comm), and all at once from its table at start-up, after a reload and after lost events.
 * Without the proc connector the engine matches names alone.
 */

#include <sys/types.h>

#include "config.h"
#include "events.h"
#include "governed.h"

/* The rule for one task (-1: none), from @proc_root ("/proc" when NULL). Pure apart from two /proc reads. */
int manager_rules_match_task(const RuleSet *rules, TaskNames *names, const char *proc_root, pid_t pid, pid_t tgid,
                             const char *comm);

/* Matches and pins one task the proc connector reported. 0, or a negative errno (-ENOMEM). */
int manager_rules_task(const Governed *g, TaskNames *names, pid_t pid, pid_t tgid, const char *comm);

/* Matches every task of the proc connector's table. 0, or a negative errno (-ENOMEM). */
int manager_rules_scan(const Governed *g, TaskNames *names);
