/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rules.c: which [rule:NAME] applies to a task (include/config.h). Pure: fnmatch(3) without flags on each match
 * key the rule has; the most specific rule wins, then the one that holds the task down, then the first.
 */

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "macro.h"

/* ---- the actions ---- */

static void clamp_min_util(TaskClamp *k, uint16_t value) {
        k->min_util = value;
}

static void clamp_max_util(TaskClamp *k, uint16_t value) {
        k->max_util = value;
}

static void clamp_rt_boost(TaskClamp *k, uint16_t value) {
        k->rt_boost = value != 0;
}

static void clamp_ignore(TaskClamp *k, uint16_t value) {
        k->ignore = value != 0;
}

/*
 * One row an action (config.h). restraint: on a tie of match keys the rule that holds a task down wins: ignore
 * (2) over a max_util below 1024 (1) over anything else (0).
 */
const RuleAction rule_actions[_RULE_ACTION_MAX] = {
        [RULE_ACTION_MIN_UTIL] = {
                .key = "min_util", .field = "MinUtil", .type = RULE_VALUE_UTIL, .none = 0,
                .clamp = clamp_min_util,
        },
        [RULE_ACTION_MAX_UTIL] = {
                .key = "max_util", .field = "MaxUtil", .type = RULE_VALUE_UTIL, .none = RULE_UTIL_MAX,
                .restraint = 1, .clamp = clamp_max_util,
        },
        [RULE_ACTION_RT_BOOST] = {
                .key = "rt_boost", .field = "RTBoost", .type = RULE_VALUE_YES_NO, .none = 0,
                .clamp = clamp_rt_boost,
        },
        [RULE_ACTION_IGNORE] = {
                .key = "ignore", .field = "Ignore", .type = RULE_VALUE_YES_NO, .none = 0,
                .exclusive = true, .restraint = 2, .note = "its load does not count", .clamp = clamp_ignore,
        },
};

const RuleAction *rule_action_find(const char *name, bool by_field) {
        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++)
                if (streq(by_field ? rule_actions[i].field : rule_actions[i].key, name))
                        return &rule_actions[i];
        return NULL;
}

static bool picked(const RuleAction *a, RuleActionsPick pick) {
        return pick == RULE_ACTIONS_ALL || a->exclusive == (pick == RULE_ACTIONS_EXCLUSIVE);
}

const char *rule_actions_text(char *buf, size_t size, RuleActionsPick pick, bool with_yes, const char *last) {
        size_t n = 0, count = 0, seen = 0;

        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++)
                count += picked(&rule_actions[i], pick);
        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(rule_actions) && n < size; i++) {
                const RuleAction *a = &rule_actions[i];
                int w;

                if (!picked(a, pick))
                        continue;
                seen++;
                w = snprintf(buf + n, size - n, "%s%s=%s", seen == 1 ? "" : seen == count ? last : ", ", a->key,
                             with_yes && a->type == RULE_VALUE_YES_NO ? "yes" : "");
                if (w < 0)
                        break;
                n += (size_t) w;
        }
        return buf;
}

void rule_init(Rule *r, const char *name) {
        *r = (Rule) {};
        strncpy(r->name, name, sizeof(r->name) - 1);
        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++)
                r->action[i] = rule_actions[i].none;
}

/* ---- which rule applies ---- */

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

/* On a tie of match keys, how much @r holds a task down: the most of its actions' restraint. */
static unsigned rule_restraint(const Rule *r) {
        unsigned restraint = 0;

        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++)
                if (rule_acts(r, (RuleActionId) i))
                        restraint = MAX(restraint, (unsigned) rule_actions[i].restraint);
        return restraint;
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
        TaskClamp k = TASK_CLAMP_NONE;
        const Rule *r;

        if (!rs || index < 0 || (unsigned) index >= rs->n || index >= RULES_MAX)
                return TASK_CLAMP_NONE;

        r = &rs->rule[index];
        k.rule = (int16_t) index;
        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++)
                rule_actions[i].clamp(&k, r->action[i]);
        return k;
}
