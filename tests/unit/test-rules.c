/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-rules.c: rules_match() and rules_clamp() (include/config.h): the precedence as a table (several rules,
 * several tasks, the rule expected for each), unknown exe/cgroup (a replayed trace has names only), and
 * fnmatch(3) globs with *, ? and [..].
 */

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "config-rules.h"
#include "macro.h"
#include "test.h"

typedef struct RuleDef {
        const char *name, *comm, *exe, *cgroup;
        unsigned min_util, max_util;    /* max_util 0 = not set (RULE_UTIL_MAX) */
        bool rt_boost, ignore;
} RuleDef;

static void rules_build(RuleSet *rs, const RuleDef *defs, size_t n) {
        *rs = (RuleSet) { .n = (unsigned) n };
        for (size_t i = 0; i < n; i++) {
                Rule *r = &rs->rule[i];

                rule_init(r, defs[i].name);
                r->action[RULE_ACTION_MIN_UTIL] = (uint16_t) defs[i].min_util;
                r->action[RULE_ACTION_MAX_UTIL] = (uint16_t) (defs[i].max_util ?: RULE_UTIL_MAX);
                r->action[RULE_ACTION_RT_BOOST] = defs[i].rt_boost;
                r->action[RULE_ACTION_IGNORE] = defs[i].ignore;
                snprintf(r->comm, sizeof(r->comm), "%s", defs[i].comm ?: "");
                snprintf(r->exe, sizeof(r->exe), "%s", defs[i].exe ?: "");
                snprintf(r->cgroup, sizeof(r->cgroup), "%s", defs[i].cgroup ?: "");
        }
}

/* The name of the rule that applies, "-" for none. */
static const char *match_name(const RuleSet *rs, const char *comm, const char *exe, const char *cgroup) {
        int i = rules_match(rs, comm, exe, cgroup);

        return i < 0 ? "-" : rs->rule[i].name;
}

static const RuleDef precedence_rules[] = {
        { "boost-any-worker",  .comm = "worker*", .min_util = 300 },
        { "cap-worker",        .comm = "worker*", .max_util = 400 },          /* ties boost-any-worker: caps win */
        { "ignore-worker-9",   .comm = "worker9", .ignore = true },           /* different glob, same specificity */
        { "batch-cgroup",      .cgroup = "/batch.slice/*", .max_util = 200 },
        { "worker-in-batch",   .comm = "worker*", .cgroup = "/batch.slice/*", .min_util = 100 }, /* 2 keys */
        { "rt-game",           .exe = "/usr/games/*", .rt_boost = true },
        { "rt-game-2",         .exe = "/usr/games/*", .rt_boost = true },      /* equal: the first wins */
        { "game-by-all",       .comm = "game?", .exe = "/usr/games/*", .cgroup = "/user.slice/*", .min_util = 512 },
        { "boost-then-cap",    .comm = "enc-*", .min_util = 100 },
        { "cap-then-ignore",   .comm = "enc-*", .max_util = 100 },
        { "ignore-enc",        .comm = "enc-*", .ignore = true },              /* ignore > max_util < 1024 > other */
        { "max-1024-is-other", .comm = "full", .max_util = 1024, .min_util = 10 },
        { "rt-full",           .comm = "full", .rt_boost = true },             /* tie of "others": the first */
};

static const struct {
        const char *comm, *exe, *cgroup;
        const char *expect;
} precedence_tasks[] = {
        { "worker1",  "/usr/bin/w",     "/system.slice/w.service", "cap-worker" },
        { "worker9",  NULL,             NULL,                      "ignore-worker-9" },
        { "worker1",  "/usr/bin/w",     "/batch.slice/job.scope",  "worker-in-batch" },
        { "cc1",      "/usr/bin/cc1",   "/batch.slice/job.scope",  "batch-cgroup" },
        { "cc1",      "/usr/bin/cc1",   "/system.slice/x.service", "-" },
        { "gamex",    "/usr/games/foo", "/user.slice/app.scope",   "game-by-all" },
        { "gamexy",   "/usr/games/foo", "/user.slice/app.scope",   "rt-game" },
        { "gamex",    "/usr/games/foo", NULL,                      "rt-game" },  /* cgroup unknown */
        { "gamex",    NULL,             "/user.slice/app.scope",   "-" },        /* exe unknown */
        { "enc-x264", NULL,             NULL,                      "ignore-enc" },
        { "full",     NULL,             NULL,                      "max-1024-is-other" },
        { NULL,       "/usr/games/foo", NULL,                      "rt-game" },  /* comm unknown */
        { NULL,       NULL,             NULL,                      "-" },
};

TEST(precedence_table) {
        RuleSet rs;

        rules_build(&rs, precedence_rules, ELEMENTSOF(precedence_rules));
        for (size_t i = 0; i < ELEMENTSOF(precedence_tasks); i++) {
                const char *got = match_name(&rs, precedence_tasks[i].comm, precedence_tasks[i].exe,
                                             precedence_tasks[i].cgroup);

                if (strcmp(got, precedence_tasks[i].expect) != 0)
                        TEST_FAIL("task %zu (%s, %s, %s): rule %s, expected %s", i,
                                  precedence_tasks[i].comm ?: "(null)", precedence_tasks[i].exe ?: "(null)",
                                  precedence_tasks[i].cgroup ?: "(null)", got, precedence_tasks[i].expect);
        }
}

/* The tie-breaks do not depend on the order: a later, more restraining rule beats an earlier one. */
TEST(precedence_order_independent) {
        static const RuleDef forward[] = {
                { "other",  .comm = "t", .rt_boost = true },
                { "cap",    .comm = "t", .max_util = 1023 },
                { "ignore", .comm = "t", .ignore = true },
        };
        static const RuleDef backward[] = {
                { "ignore", .comm = "t", .ignore = true },
                { "cap",    .comm = "t", .max_util = 1023 },
                { "other",  .comm = "t", .rt_boost = true },
        };
        static const RuleDef more_keys_first[] = {
                { "two",    .comm = "t", .exe = "/t", .rt_boost = true },
                { "ignore", .comm = "t", .ignore = true },
        };
        RuleSet rs;

        rules_build(&rs, forward, ELEMENTSOF(forward));
        ASSERT_STREQ(match_name(&rs, "t", NULL, NULL), "ignore");
        rules_build(&rs, forward, 2);
        ASSERT_STREQ(match_name(&rs, "t", NULL, NULL), "cap");
        rules_build(&rs, backward, ELEMENTSOF(backward));
        ASSERT_STREQ(match_name(&rs, "t", NULL, NULL), "ignore");
        /* More match keys beat ignore. */
        rules_build(&rs, more_keys_first, ELEMENTSOF(more_keys_first));
        ASSERT_STREQ(match_name(&rs, "t", "/t", NULL), "two");
        ASSERT_STREQ(match_name(&rs, "t", NULL, NULL), "ignore");
}

TEST(globs) {
        static const RuleDef defs[] = {
                { "star",     .comm = "kworker/*", .ignore = true },
                { "question", .comm = "cc?", .max_util = 100 },
                { "bracket",  .comm = "[xy]org", .max_util = 100 },
                { "negated",  .comm = "[!a-m]ython[0-9]", .max_util = 100 },
                { "class",    .comm = "[[:upper:]]*", .max_util = 100 },
                { "escaped",  .comm = "lit\\*", .max_util = 100 },
                { "exe",      .exe = "/opt/*/bin/*", .min_util = 200 },
                { "cgroup",   .cgroup = "/user.slice/user-*.slice/*", .min_util = 200 },
        };
        RuleSet rs;

        rules_build(&rs, defs, ELEMENTSOF(defs));
        ASSERT_STREQ(match_name(&rs, "kworker/0:1", NULL, NULL), "star");
        ASSERT_STREQ(match_name(&rs, "kworker", NULL, NULL), "-");
        ASSERT_STREQ(match_name(&rs, "cc1", NULL, NULL), "question");
        ASSERT_STREQ(match_name(&rs, "cc", NULL, NULL), "-");
        ASSERT_STREQ(match_name(&rs, "cc12", NULL, NULL), "-");
        ASSERT_STREQ(match_name(&rs, "xorg", NULL, NULL), "bracket");
        ASSERT_STREQ(match_name(&rs, "zorg", NULL, NULL), "-");
        ASSERT_STREQ(match_name(&rs, "python3", NULL, NULL), "negated");
        ASSERT_STREQ(match_name(&rs, "jython3", NULL, NULL), "-");
        ASSERT_STREQ(match_name(&rs, "Xwayland", NULL, NULL), "class");
        ASSERT_STREQ(match_name(&rs, "lit*", NULL, NULL), "escaped");
        ASSERT_STREQ(match_name(&rs, "lit1", NULL, NULL), "-");
        /* Without FNM_PATHNAME a '*' crosses '/'. */
        ASSERT_STREQ(match_name(&rs, "a", "/opt/x/y/bin/z", NULL), "exe");
        ASSERT_STREQ(match_name(&rs, "a", "/usr/bin/z", NULL), "-");
        ASSERT_STREQ(match_name(&rs, "a", NULL, "/user.slice/user-1000.slice/app.slice/a.scope"), "cgroup");
        ASSERT_STREQ(match_name(&rs, "a", NULL, "/system.slice/a.service"), "-");
}

TEST(no_match_key_never_matches) {
        static const RuleDef defs[] = { { "nothing", .ignore = true } };
        RuleSet rs;

        rules_build(&rs, defs, ELEMENTSOF(defs));
        ASSERT_EQ(rule_match_keys(&rs.rule[0]), 0);
        ASSERT_EQ(rules_match(&rs, "a", "/a", "/a"), -1);
        ASSERT_EQ(rules_match(&rs, NULL, NULL, NULL), -1);
}

TEST(match_keys_counted) {
        static const RuleDef defs[] = {
                { "c", .comm = "a" },
                { "ce", .comm = "a", .exe = "/a" },
                { "all", .comm = "a", .exe = "/a", .cgroup = "/" },
        };
        RuleSet rs;

        rules_build(&rs, defs, ELEMENTSOF(defs));
        ASSERT_EQ(rule_match_keys(&rs.rule[0]), 1);
        ASSERT_EQ(rule_match_keys(&rs.rule[1]), 2);
        ASSERT_EQ(rule_match_keys(&rs.rule[2]), 3);
}

TEST(empty_set) {
        RuleSet rs = { .n = 0 };

        ASSERT_EQ(rules_match(&rs, "a", "/a", "/a"), -1);
        ASSERT_EQ(rules_match(NULL, "a", "/a", "/a"), -1);
}

TEST(clamp) {
        static const RuleDef defs[] = {
                { "boost", .comm = "a", .min_util = 300, .max_util = 900, .rt_boost = true },
                { "ignore", .comm = "b", .ignore = true },
        };
        TaskClamp none = TASK_CLAMP_NONE, t;
        RuleSet rs;

        rules_build(&rs, defs, ELEMENTSOF(defs));
        t = rules_clamp(&rs, 0);
        ASSERT_EQ(t.rule, 0);
        ASSERT_EQ(t.min_util, 300);
        ASSERT_EQ(t.max_util, 900);
        ASSERT_TRUE(t.rt_boost && !t.ignore);

        t = rules_clamp(&rs, 1);
        ASSERT_EQ(t.rule, 1);
        ASSERT_EQ(t.min_util, 0);
        ASSERT_EQ(t.max_util, RULE_UTIL_MAX);
        ASSERT_TRUE(!t.rt_boost && t.ignore);

        ASSERT_EQ(none.rule, -1);
        ASSERT_EQ(none.min_util, 0);
        ASSERT_EQ(none.max_util, RULE_UTIL_MAX);
        for (int i = -2; i <= 3; i += 5) { /* -2 and 3: out of range */
                t = rules_clamp(&rs, i);
                ASSERT_TRUE(memcmp(&t, &none, sizeof(t)) == 0);
        }
        t = rules_clamp(&rs, -1);
        ASSERT_TRUE(memcmp(&t, &none, sizeof(t)) == 0);
        t = rules_clamp(NULL, 0);
        ASSERT_EQ(t.rule, -1);
}

/*
 * The table of actions holds together: every row is found by its key and field, parses from a [rule:NAME] key,
 * does nothing at its none value and something at another, is judged an action by the checks of a rule, and an
 * exclusive one refuses company. A new row that breaks one of these fails here.
 */
TEST(action_table) {
        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++) {
                const RuleAction *a = &rule_actions[i];
                const char *value = a->type == RULE_VALUE_YES_NO ? "yes" : a->none == 0 ? "512" : "256";
                const char *reason = NULL;
                TaskClamp none = TASK_CLAMP_NONE, k;
                RuleSet rs = { .n = 1 };
                Rule *r = &rs.rule[0];

                ASSERT_TRUE(a->key && a->field && a->clamp);
                ASSERT_TRUE(rule_action_find(a->key, false) == a);
                ASSERT_TRUE(rule_action_find(a->field, true) == a);
                ASSERT_TRUE(strstr(rule_keys_text(), a->key) != NULL);

                rule_init(r, "r");
                snprintf(r->comm, sizeof(r->comm), "x");
                ASSERT_EQ(r->action[i], a->none);
                k = rules_clamp(&rs, 0);
                k.rule = -1;
                ASSERT_TRUE(memcmp(&k, &none, sizeof(k)) == 0);
                ASSERT_TRUE(rule_problems(r) & RULE_PROBLEM_NO_ACTION);

                ASSERT_EQ(rule_set_key(r, a->key, value, &reason), 0);
                ASSERT_TRUE(rule_acts(r, (RuleActionId) i));
                k = rules_clamp(&rs, 0);
                k.rule = -1;
                ASSERT_TRUE(memcmp(&k, &none, sizeof(k)) != 0);
                ASSERT_EQ(rule_problems(r), 0U);

                for (size_t j = 0; j < ELEMENTSOF(rule_actions); j++) {
                        if (j == i || !(a->exclusive || rule_actions[j].exclusive))
                                continue;
                        r->action[j] = rule_actions[j].type == RULE_VALUE_YES_NO ? 1 : rule_actions[j].none ? 100 : 1;
                        ASSERT_TRUE(rule_problems(r) & RULE_PROBLEM_IGNORE_AND_MORE);
                        r->action[j] = rule_actions[j].none;
                }
        }
}

DEFINE_TEST_MAIN
