/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Per-process rules (issue #13): `[rule:NAME]` sections of the configuration that boost, cap or ignore the
 * tasks they match, without changing the programs, as uclamp does in the kernel (reference §3.3) and cpufreqd's
 * "programs" rules do in user space.
 *
 * Match keys (at least one; all given must match): comm (glob on the task name, TASK_COMM_LEN), exe (glob on the
 * executable's path), cgroup (glob on the cgroup v2 path, "/system.slice/foo.service"); fnmatch(3) globs
 * without flags. A key whose value is unknown for a task (a replayed trace has names only) does not match.
 *
 * Actions (at least one): min_util / max_util (0..1024, min <= max): the task's uclamp min / max; rt_boost:
 * its CPU's policy goes to max while it is runnable, as for an RT task; ignore: its load does not count (the
 * model sees its CPU idle while it runs). ignore excludes the other actions.
 *
 * Precedence: one rule applies to a task, the most specific that matches: the one with the most match keys;
 * on a tie the one that holds the task down (ignore, then max_util below 1024, then anything else); then the
 * first in the configuration (file order, drop-ins after the main file). See schedfreqd.conf(5).
 */

#include <stdbool.h>
#include <stdint.h>

#include "config-origin.h"

#define RULES_MAX 32
#define RULE_NAME_MAX 64
#define RULE_COMM_GLOB_MAX 64
#define RULE_PATH_GLOB_MAX 256
#define RULE_UTIL_MAX 1024

typedef struct Rule {
        char name[RULE_NAME_MAX];             /* the NAME of [rule:NAME] */
        char comm[RULE_COMM_GLOB_MAX];        /* "" = not a match key */
        char exe[RULE_PATH_GLOB_MAX];
        char cgroup[RULE_PATH_GLOB_MAX];
        uint16_t min_util;                    /* 0 when not set */
        uint16_t max_util;                    /* RULE_UTIL_MAX when not set */
        bool rt_boost;
        bool ignore;
        ConfigOrigin origin;                  /* its "[rule:NAME]" header */
} Rule;

typedef struct RuleSet {
        unsigned n;
        Rule rule[RULES_MAX];
} RuleSet;

/* What a task's rule does to it; the zero value of TASK_CLAMP_NONE is "no rule". */
typedef struct TaskClamp {
        int16_t rule;                         /* index into the RuleSet, -1 = none */
        uint16_t min_util, max_util;
        bool rt_boost, ignore;
} TaskClamp;

#define TASK_CLAMP_NONE ((TaskClamp) { .rule = -1, .min_util = 0, .max_util = RULE_UTIL_MAX })

/* The number of match keys of @r (its specificity). */
unsigned rule_match_keys(const Rule *r);

/*
 * The index of the rule that applies to a task with @comm, @exe and @cgroup (each NULL when unknown), or -1.
 * Pure; no allocation.
 */
int rules_match(const RuleSet *rs, const char *comm, const char *exe, const char *cgroup);

/* The clamp of rule @index of @rs (TASK_CLAMP_NONE for -1). */
TaskClamp rules_clamp(const RuleSet *rs, int index);
