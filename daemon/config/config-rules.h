/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What a [rule:NAME] section of the configuration may hold (issue #13). Internal to daemon/config/config-load.c, which reads
 * the files and turns every problem into "FILE:LINE: reason", and daemon/config/config-rules.c, which knows the keys.
 */

#include <stdbool.h>

#include "config.h"

#define RULE_SECTION_PREFIX "rule:"

/* The NAME of a "rule:NAME" section, or NULL when @section is not one. */
const char *rule_section_name(const char *section);

/* Whether @name is a valid NAME: 1..RULE_NAME_MAX-1 characters of [A-Za-z0-9_.-]. */
bool rule_name_valid(const char *name);

/*
 * The index of the rule named @name (valid) in @rs, added without any key (TASK_CLAMP_NONE's values) when it
 * is not there yet; -ENOSPC when @rs has RULES_MAX rules already.
 */
int rule_set_find_or_add(RuleSet *rs, const char *name);

/* The key of a rule that @key is a typo of (string_is_typo_of(), the closest), or NULL. */
/* "comm, exe, cgroup, min_util, ...": every key a [rule:NAME] section takes, for an error message. */
const char *rule_keys_text(void);
const char *rule_key_suggest(const char *key);

/* Sets @key of @r from @value: 0; -ENOENT for an unknown key; -EINVAL with a reason (a static string). */
int rule_set_key(Rule *r, const char *key, const char *value, const char **ret_reason);

/* What is wrong with a rule as a whole, judged once every file is read (a drop-in may complete a rule). */
typedef enum RuleProblem {
        RULE_PROBLEM_NO_MATCH_KEY = 1 << 0,     /* none of comm=, exe=, cgroup= */
        RULE_PROBLEM_NO_ACTION = 1 << 1,        /* nothing that differs from no rule */
        RULE_PROBLEM_IGNORE_AND_MORE = 1 << 2,  /* ignore=yes and another action */
        RULE_PROBLEM_MIN_ABOVE_MAX = 1 << 3,    /* min_util > max_util */
} RuleProblem;

/* The RuleProblem bits of @r; 0 when it is a good rule. */
unsigned rule_problems(const Rule *r);
