/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for autogroup.c: whether the kernel groups tasks by session, read from fake /proc/sys and /sys/fs/cgroup
 * trees in a temp dir: kernel.sched_autogroup_enabled, then where the cpu controller is (cgroup v1: any process in
 * a group below the hierarchy's root; v2, plain or hybrid: "cpu" in the root's subtree_control), and every way of
 * not knowing giving no. Last, the running machine's answer as discovery takes it.
 */

#include <stdlib.h>

#include "autogroup.h"
#include "macro.h"
#include "scratch-tree.h"
#include "test.h"

DEFINE_TEST_MAIN;

#define treep scratch_tree_freep

#define tree_write scratch_tree_put

/* A tree with kernel.sched_autogroup_enabled = @enabled (NULL: no file, no CONFIG_SCHED_AUTOGROUP). */
static char *tree_new(const char *enabled) {
        char *root = scratch_tree_new("test-autogroup");

        if (!root)
                abort();
        if (enabled)
                tree_write(root, enabled, "proc/sys/kernel/sched_autogroup_enabled");
        return root;
}

/* cgroup v1's cpu hierarchy as this VM has it: every task in the root. */
static void tree_v1_root_only(const char *root) {
        tree_write(root, "1\n2\n3\n", "sys/fs/cgroup/cpu/tasks");
        tree_write(root, "1\n2\n", "sys/fs/cgroup/cpu/cgroup.procs");
        tree_write(root, "1024\n", "sys/fs/cgroup/cpu/cpu.shares");
}

TEST(sysctl_decides_first) {
        _cleanup_(treep) char *none = tree_new(NULL), *off = tree_new("0\n"), *on = tree_new("1\n");

        tree_v1_root_only(none);
        tree_v1_root_only(off);
        tree_v1_root_only(on);
        ASSERT_TRUE(!autogroup_applies(none));  /* no CONFIG_SCHED_AUTOGROUP */
        ASSERT_TRUE(!autogroup_applies(off));   /* the sysctl, or noautogroup */
        ASSERT_TRUE(autogroup_applies(on));
}

TEST(v1_groups_without_processes_do_not_count) {
        _cleanup_(treep) char *root = tree_new("1\n");

        tree_v1_root_only(root);
        /* systemd's slices made for accounting, empty here */
        tree_write(root, "", "sys/fs/cgroup/cpu/system.slice/cgroup.procs");
        tree_write(root, "", "sys/fs/cgroup/cpu/system.slice/cron.service/cgroup.procs");
        tree_write(root, "", "sys/fs/cgroup/cpu/user.slice/cgroup.procs");
        ASSERT_TRUE(autogroup_applies(root));
}

TEST(v1_a_process_in_a_child_group) {
        _cleanup_(treep) char *root = tree_new("1\n"), *deep = tree_new("1\n");

        tree_v1_root_only(root);
        tree_write(root, "", "sys/fs/cgroup/cpu/user.slice/cgroup.procs");
        tree_write(root, "4242\n", "sys/fs/cgroup/cpu/docker/cgroup.procs");
        ASSERT_TRUE(!autogroup_applies(root));

        /* at any depth: task_wants_autogroup() refuses every non-root task group */
        tree_v1_root_only(deep);
        tree_write(deep, "", "sys/fs/cgroup/cpu/system.slice/cgroup.procs");
        tree_write(deep, "", "sys/fs/cgroup/cpu/system.slice/a.service/cgroup.procs");
        tree_write(deep, "77\n", "sys/fs/cgroup/cpu/system.slice/a.service/inner/cgroup.procs");
        ASSERT_TRUE(!autogroup_applies(deep));
}

TEST(v2_cpu_controller_at_the_root) {
        _cleanup_(treep) char *without = tree_new("1\n"), *with = tree_new("1\n"), *cpuset = tree_new("1\n");

        tree_write(without, "memory pids io\n", "sys/fs/cgroup/cgroup.subtree_control");
        tree_write(without, "1\n", "sys/fs/cgroup/system.slice/cgroup.procs");
        ASSERT_TRUE(autogroup_applies(without));

        tree_write(with, "cpuset cpu io memory pids\n", "sys/fs/cgroup/cgroup.subtree_control");
        ASSERT_TRUE(!autogroup_applies(with));

        /* a whole word: cpuset alone is not the cpu controller */
        tree_write(cpuset, "cpuset io\n", "sys/fs/cgroup/cgroup.subtree_control");
        ASSERT_TRUE(autogroup_applies(cpuset));
}

TEST(hybrid_layout) {
        _cleanup_(treep) char *unified = tree_new("1\n"), *v1_cpu = tree_new("1\n");

        /* systemd's hybrid: a tmpfs at /sys/fs/cgroup, v2 at unified/ (no controllers), v1 cpu elsewhere absent */
        tree_write(unified, "", "sys/fs/cgroup/unified/cgroup.subtree_control");
        ASSERT_TRUE(autogroup_applies(unified));

        /* and with the cpu controller on v1: the v1 hierarchy decides */
        tree_write(v1_cpu, "", "sys/fs/cgroup/unified/cgroup.subtree_control");
        tree_v1_root_only(v1_cpu);
        tree_write(v1_cpu, "9\n", "sys/fs/cgroup/cpu/machine.slice/cgroup.procs");
        ASSERT_TRUE(!autogroup_applies(v1_cpu));
}

TEST(no_cgroup_file_system_is_not_known) {
        _cleanup_(treep) char *root = tree_new("1\n");

        ASSERT_TRUE(!autogroup_applies(root));
}

/* The real machine, as cpufreq_discover() asks: this VM has autogroup on and every task in the root cpu cgroup
 * (v1); elsewhere only that the call answers. */
TEST(this_machine) {
        bool a = autogroup_applies(NULL);

        ASSERT_TRUE(a == autogroup_applies(""));
        printf("# this machine: autogroup %s\n", a ? "yes" : "no");
}
