/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config-rules.c: the keys of a [rule:NAME] section (daemon/config/config-rules.h), one table row each, and the checks
 * of a rule as a whole. daemon/config/config-load.c calls these and reports "FILE:LINE: reason"; nothing here knows files.
 *
 * Globs are the patterns of fnmatch(3) without flags (daemon/config/rules.c matches them). fnmatch() takes any string,
 * but reads "[abc" as a literal '[' and a trailing '\' as a literal backslash: in a configuration both are far
 * more likely slips than intent (write "\[" for a literal '['), so they are refused here.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config-keys.h"
#include "config-rules.h"
#include "macro.h"
#include "string-util.h"

const char *rule_section_name(const char *section) {
        size_t n = strlen(RULE_SECTION_PREFIX);

        return strncmp(section, RULE_SECTION_PREFIX, n) == 0 ? section + n : NULL;
}

static bool rule_name_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
                c == '-';
}

bool rule_name_valid(const char *name) {
        size_t n = strlen(name);

        if (n == 0 || n >= RULE_NAME_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!rule_name_char(name[i]))
                        return false;
        return true;
}

int rule_set_find_or_add(RuleSet *rs, const char *name) {
        Rule *r;

        for (unsigned i = 0; i < rs->n; i++)
                if (streq(rs->rule[i].name, name))
                        return (int) i;
        if (rs->n >= RULES_MAX)
                return -ENOSPC;

        r = &rs->rule[rs->n];
        rule_init(r, name); /* valid: it fits */
        return (int) rs->n++;
}

/* ---- values ---- */

/*
 * Where a bracket expression that starts at @p ('[') ends (its ']'), or NULL when it does not. As fnmatch(3):
 * a ']' right after "[" or "[!" / "[^" is a member, "\x" is x, and "[:class:]", "[.x.]", "[=x=]" are members
 * whose own ']' does not close the expression.
 */
static const char *bracket_end(const char *p) {
        p++;
        if (*p == '!' || *p == '^')
                p++;
        if (*p == ']')
                p++;
        for (; *p; p++) {
                if (*p == ']')
                        return p;
                if (*p == '\\') {
                        if (!p[1])
                                return NULL;
                        p++;
                } else if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
                        const char close[3] = { p[1], ']', '\0' };
                        const char *end = strstr(p + 2, close);

                        if (end)
                                p = end + 1;
                }
        }
        return NULL;
}

/* NULL for a glob fnmatch() reads as written; else why not. */
static const char *glob_problem(const char *glob) {
        for (const char *p = glob; *p; p++) {
                if (*p == '\\') {
                        if (!p[1])
                                return "a glob may not end with a lone '\\' (write \\\\ for a backslash)";
                        p++;
                } else if (*p == '[') {
                        p = bracket_end(p);
                        if (!p)
                                return "'[' without its ']' in the glob (write \\[ for a '[')";
                }
        }
        return NULL;
}

typedef struct RuleItem {
        const char *key;
        int (*parse)(const struct RuleItem *item, const char *value, void *field, const char **ret_reason);
        size_t offset;            /* into Rule */
        size_t size;              /* of a glob's field */
        const char *too_long;     /* a glob's reason when it does not fit */
} RuleItem;

static int parse_glob(const RuleItem *item, const char *value, void *field, const char **ret_reason) {
        const char *problem;

        if (value[0] == '\0') {
                *ret_reason = "expected a glob, not an empty value";
                return -EINVAL;
        }
        if (strlen(value) >= item->size) {
                *ret_reason = item->too_long;
                return -EINVAL;
        }
        problem = glob_problem(value);
        if (problem) {
                *ret_reason = problem;
                return -EINVAL;
        }
        memcpy(field, value, strlen(value) + 1);
        return 0;
}

static int parse_util(const char *value, uint16_t *ret, const char **ret_reason) {
        uint64_t v;
        int r;

        r = parse_u64_range(value, 0, RULE_UTIL_MAX, &v);
        if (r < 0) {
                *ret_reason = "expected an integer between 0 and 1024";
                return r;
        }
        *ret = (uint16_t) v;
        return 0;
}

/* yes or no, as remote= spells them. */
static int parse_yes_no(const char *value, uint16_t *ret, const char **ret_reason) {
        if (streq(value, "yes"))
                *ret = 1;
        else if (streq(value, "no"))
                *ret = 0;
        else {
                *ret_reason = "expected yes or no";
                return -EINVAL;
        }
        return 0;
}

#define GLOB_ITEM(k, text) \
        { #k, parse_glob, offsetof(Rule, k), sizeof(((Rule *) NULL)->k), "expected a glob of at most " text " bytes" }

static const RuleItem rule_items[] = {
        GLOB_ITEM(comm, "63"),
        GLOB_ITEM(exe, "255"),
        GLOB_ITEM(cgroup, "255"),
};

_Static_assert(RULE_COMM_GLOB_MAX == 64 && RULE_PATH_GLOB_MAX == 256, "the glob reasons name the sizes");

/* The match keys, then the actions' (rule_actions[], config.h). */
static const char *rule_key(size_t i) {
        return i < ELEMENTSOF(rule_items) ? rule_items[i].key :
                i < ELEMENTSOF(rule_items) + ELEMENTSOF(rule_actions) ? rule_actions[i - ELEMENTSOF(rule_items)].key :
                NULL;
}

const char *rule_keys_text(void) {
        static char text[256];

        if (text[0] == '\0')
                for (size_t i = 0, n = 0; rule_key(i) && n < sizeof(text); i++)
                        n += (size_t) snprintf(text + n, sizeof(text) - n, "%s%s", i ? ", " : "", rule_key(i));
        return text;
}

const char *rule_key_suggest(const char *key) {
        const char *found = NULL;
        size_t best = SIZE_MAX;

        for (size_t i = 0; rule_key(i); i++) {
                size_t d;

                if (!string_is_typo_of(key, rule_key(i)))
                        continue;
                d = string_distance(key, rule_key(i));
                if (d < best) {
                        best = d;
                        found = rule_key(i);
                }
        }
        return found;
}

int rule_set_key(Rule *r, const char *key, const char *value, const char **ret_reason) {
        const RuleAction *a;

        for (size_t i = 0; i < ELEMENTSOF(rule_items); i++) {
                const RuleItem *item = &rule_items[i];

                if (streq(item->key, key))
                        return item->parse(item, value, (uint8_t *) r + item->offset, ret_reason) < 0 ? -EINVAL : 0;
        }
        a = rule_action_find(key, false);
        if (!a)
                return -ENOENT;
        return (a->type == RULE_VALUE_UTIL ? parse_util : parse_yes_no)(value, &r->action[a - rule_actions],
                                                                         ret_reason) < 0 ? -EINVAL : 0;
}

/* ---- a rule as a whole ---- */

unsigned rule_problems(const Rule *r) {
        unsigned problems = 0, acts = 0, exclusive = 0;

        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++)
                if (rule_acts(r, (RuleActionId) i)) {
                        acts++;
                        exclusive += rule_actions[i].exclusive;
                }
        if (rule_match_keys(r) == 0)
                problems |= RULE_PROBLEM_NO_MATCH_KEY;
        if (acts == 0)
                problems |= RULE_PROBLEM_NO_ACTION;
        if (exclusive > 0 && acts > 1)
                problems |= RULE_PROBLEM_IGNORE_AND_MORE;
        if (r->action[RULE_ACTION_MIN_UTIL] > r->action[RULE_ACTION_MAX_UTIL])
                problems |= RULE_PROBLEM_MIN_ABOVE_MAX;
        return problems;
}
