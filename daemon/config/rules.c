/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rules.c: which [rule:NAME] applies to a task (include/config.h). Pure: fnmatch(3) without flags on each match
 * key the rule has; the most specific rule wins, then the one that holds the task down, then the first.
 */

#include <fnmatch.h>

#include "config.h"

unsigned rule_match_keys(const Rule *r) {
        return (r->comm[0] != '\0') + (r->exe[0] != '\0') + (r->cgroup[0] != '\0');
}

/* A match key of a rule: absent ("") matches anything, present matches a known value that fits the glob. */
static bool key_matches(const char *glob, const char *value) {
        if (glob[0] == '\0')
                return true;
        return value && fnmatch(glob, value, 0) == 0;
}

static bool rule_matches(const Rule *r, const char *comm, const char *exe, const char *cgroup) {
        return rule_match_keys(r) > 0 && key_matches(r->comm, comm) && key_matches(r->exe, exe) &&
                key_matches(r->cgroup, cgroup);
}

/* On a tie of match keys: 2 = ignore, 1 = a max_util below RULE_UTIL_MAX, 0 = anything else. */
static unsigned rule_restraint(const Rule *r) {
        if (r->ignore)
                return 2;
        return r->max_util < RULE_UTIL_MAX;
}

int rules_match(const RuleSet *rs, const char *comm, const char *exe, const char *cgroup) {
        unsigned best_keys = 0, best_restraint = 0;
        int best = -1;

        if (!rs)
                return -1;

        for (unsigned i = 0; i < rs->n && i < RULES_MAX; i++) {
                const Rule *r = &rs->rule[i];
                unsigned keys, restraint;

                if (!rule_matches(r, comm, exe, cgroup))
                        continue;
                keys = rule_match_keys(r);
                restraint = rule_restraint(r);
                /* Strictly better only: an equal rule later in the file does not replace an earlier one. */
                if (best >= 0 && (keys < best_keys || (keys == best_keys && restraint <= best_restraint)))
                        continue;
                best = (int) i;
                best_keys = keys;
                best_restraint = restraint;
        }
        return best;
}

TaskClamp rules_clamp(const RuleSet *rs, int index) {
        const Rule *r;

        if (!rs || index < 0 || (unsigned) index >= rs->n || index >= RULES_MAX)
                return TASK_CLAMP_NONE;

        r = &rs->rule[index];
        return (TaskClamp) {
                .rule = (int16_t) index,
                .min_util = r->min_util,
                .max_util = r->max_util,
                .rt_boost = r->rt_boost,
                .ignore = r->ignore,
        };
}
