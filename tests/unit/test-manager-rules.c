/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for manager-rules.c: a task's rule from what the proc connector knows, over a fake /proc tree in a temp
 * dir: exe and cgroup keys, a thread taking its process's rule unless one matches its own name, unreadable
 * entries, and no reads at all when no rule needs them.
 */

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "events.h"
#include "macro.h"
#include "manager-rules.h"
#include "test.h"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void tree_free(char **root) {
        if (*root)
                (void) nftw(*root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(*root);
}

/* ROOT/PID/exe → @exe (a symlink, as procfs shows it) and ROOT/PID/cgroup with @cgroup_line. */
static void fake_process(const char *root, int pid, const char *exe, const char *cgroup_line) {
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%d", root, pid);
        ASSERT_TRUE(mkdir(path, 0755) == 0);
        if (exe) {
                snprintf(path, sizeof(path), "%s/%d/exe", root, pid);
                ASSERT_TRUE(symlink(exe, path) == 0);
        }
        if (cgroup_line) {
                snprintf(path, sizeof(path), "%s/%d/cgroup", root, pid);
                f = fopen(path, "we");
                ASSERT_TRUE(f != NULL);
                fputs(cgroup_line, f);
                fclose(f);
        }
}

static void rule_add(RuleSet *rs, const char *name, const char *comm, const char *exe, const char *cgroup,
                     unsigned max_util) {
        Rule *r = &rs->rule[rs->n++];

        rule_init(r, name);
        r->action[RULE_ACTION_MAX_UTIL] = (uint16_t) max_util;
        snprintf(r->comm, sizeof(r->comm), "%s", comm ?: "");
        snprintf(r->exe, sizeof(r->exe), "%s", exe ?: "");
        snprintf(r->cgroup, sizeof(r->cgroup), "%s", cgroup ?: "");
}

TEST(match_from_proc) {
        _cleanup_(tree_free) char *root = strdup("/tmp/test-manager-rules.XXXXXX");
        _cleanup_(task_names_freep) TaskNames *names = NULL;
        RuleSet rs = {};

        ASSERT_TRUE(root && mkdtemp(root));
        rule_add(&rs, "by-exe", NULL, "/usr/bin/indexer*", NULL, 100);                   /* 0 */
        rule_add(&rs, "by-cgroup", NULL, NULL, "/system.slice/backup*.service", 200);    /* 1 */
        rule_add(&rs, "by-name", "browser", NULL, NULL, 300);                            /* 2 */
        rule_add(&rs, "thread", "Compositor", NULL, NULL, 400);                          /* 3 */
        rule_add(&rs, "name-and-exe", "browser", "/opt/browser/*", NULL, 500);           /* 4 */

        fake_process(root, 100, "/usr/bin/indexer-daemon", "0::/user.slice\n");
        fake_process(root, 200, "/usr/bin/tar", "12:cpu:/legacy\n0::/system.slice/backup-home.service\n");
        fake_process(root, 300, "/usr/lib/browser/browser", "0::/user.slice/app.scope\n");
        fake_process(root, 400, "/opt/browser/browser", "0::/\n");
        fake_process(root, 500, NULL, NULL);    /* a kernel thread: no exe, no cgroup file */

        ASSERT_OK(task_names_new(root, 0, &names));
        ASSERT_OK(task_names_set(names, 300, 300, "browser"));

        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 100, 100, "indexer-daemon"), 0);
        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 200, 200, "tar"), 1);
        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 300, 300, "browser"), 2);
        /* Two keys beat one: the same name, but the executable matches the more specific rule. */
        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 400, 400, "browser"), 4);
        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 500, 500, "kworker/0:1"), -1);
        /* Threads: one with its own rule keeps it, another takes its process's (the leader's name). */
        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 301, 300, "Compositor"), 3);
        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 302, 300, "DOM Worker"), 2);
        /* A process that is gone: its name alone. */
        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 999, 999, "browser"), 2);
        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 998, 998, "indexer-daemon"), -1);

        rs.n = 0;
        ASSERT_EQ(manager_rules_match_task(&rs, names, root, 100, 100, "indexer-daemon"), -1);
        ASSERT_EQ(manager_rules_match_task(NULL, names, root, 100, 100, "indexer-daemon"), -1);
}

DEFINE_TEST_MAIN
