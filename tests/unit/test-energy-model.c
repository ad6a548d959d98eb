/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for energy-model.c: the inefficient OPPs of a policy read from fake debugfs energy_model/ trees in a temp
 * dir, laid out as kernel/power/energy_model.c's em_debug_create_pd()/em_debug_create_ps() make them: the domain
 * found by its CPUs, only states flagged EM_PERF_STATE_INEFFICIENT and in the cpufreq table, and every way of
 * having no EM (no directory, no domain, unreadable files) giving none without an error.
 */

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "energy-model.h"
#include "macro.h"
#include "scratch-tree.h"
#include "test.h"

DEFINE_TEST_MAIN;

static char *tree_new(void) {
        return scratch_tree_new("test-energy-model");
}

#define treep scratch_tree_freep

#define tree_write scratch_tree_put

/* One performance state of domain @pd: ps:KHZ/{frequency,power,cost,performance,inefficient}. */
static void tree_state(const char *root, const char *pd, unsigned long khz, const char *inefficient) {
        char v[32];

        (void) snprintf(v, sizeof(v), "%lu\n", khz);
        tree_write(root, v, "%s/ps:%lu/frequency", pd, khz);
        tree_write(root, "100\n", "%s/ps:%lu/power", pd, khz);
        tree_write(root, "200\n", "%s/ps:%lu/cost", pd, khz);
        tree_write(root, "300\n", "%s/ps:%lu/performance", pd, khz);
        tree_write(root, inefficient, "%s/ps:%lu/inefficient", pd, khz);
}

static cpu_set_t cpus_of(unsigned first, unsigned last) {
        cpu_set_t set;

        CPU_ZERO(&set);
        for (unsigned cpu = first; cpu <= last; cpu++)
                CPU_SET(cpu, &set);
        return set;
}

static const uint32_t table[] = { 500000, 1000000, 1500000, 2000000 };

/* A big.LITTLE-like machine: cpu0 spans CPUs 0-1 (two inefficient states, one not in the table), cpu2 spans
 * 2-3 (none inefficient), and a GPU domain without a cpus file. */
static char *tree_big_little(void) {
        char *root = tree_new();

        if (!root)
                abort();
        tree_write(root, "0-1\n", "cpu0/cpus");
        tree_write(root, "0x2\n", "cpu0/flags");
        tree_state(root, "cpu0", 500000, "0\n");
        tree_state(root, "cpu0", 1000000, "1\n");
        tree_state(root, "cpu0", 1200000, "1\n");   /* not in the cpufreq table: left out */
        tree_state(root, "cpu0", 1500000, "1\n");
        tree_state(root, "cpu0", 2000000, "0\n");
        tree_write(root, "2-3\n", "cpu2/cpus");
        tree_write(root, "0x0\n", "cpu2/flags");
        tree_state(root, "cpu2", 500000, "0\n");
        tree_state(root, "cpu2", 2000000, "0\n");
        tree_write(root, "0x0\n", "gpu/flags");
        tree_state(root, "gpu", 1000000, "1\n");
        return root;
}

TEST(domain_of_the_policy) {
        _cleanup_(treep) char *root = tree_big_little();
        _cleanup_free_ uint32_t *khz = NULL;
        cpu_set_t cpus = cpus_of(0, 1);
        size_t n = 99;

        ASSERT_OK(energy_model_inefficient_khz(root, &cpus, table, ELEMENTSOF(table), &khz, &n));
        ASSERT_EQ(n, 2);
        ASSERT_EQ(khz[0], 1000000);
        ASSERT_EQ(khz[1], 1500000);
        free(khz);
        khz = NULL;

        /* The domain is found by any CPU it shares with the policy. */
        cpus = cpus_of(1, 1);
        ASSERT_OK(energy_model_inefficient_khz(root, &cpus, table, ELEMENTSOF(table), &khz, &n));
        ASSERT_EQ(n, 2);
        free(khz);
        khz = NULL;

        /* A domain without inefficient states, and CPUs without a domain: none. */
        cpus = cpus_of(2, 3);
        ASSERT_OK(energy_model_inefficient_khz(root, &cpus, table, ELEMENTSOF(table), &khz, &n));
        ASSERT_TRUE(!khz && n == 0);
        cpus = cpus_of(5, 7);
        ASSERT_OK(energy_model_inefficient_khz(root, &cpus, table, ELEMENTSOF(table), &khz, &n));
        ASSERT_TRUE(!khz && n == 0);
}

TEST(flags_and_names) {
        _cleanup_(treep) char *root = tree_new();
        _cleanup_free_ uint32_t *khz = NULL;
        cpu_set_t cpus = cpus_of(0, 0);
        size_t n = 0;
        char path[512];

        ASSERT_TRUE(root);
        tree_write(root, "0\n", "cpu0/cpus");
        /* "inefficient" shows the state's flags: bit 0 is EM_PERF_STATE_INEFFICIENT. */
        tree_state(root, "cpu0", 500000, "2\n");
        tree_state(root, "cpu0", 1000000, "3\n");
        /* No "frequency" file: the directory's name (ps:%lu) says it. */
        tree_state(root, "cpu0", 1500000, "1\n");
        (void) snprintf(path, sizeof(path), "%s/cpu0/ps:1500000/frequency", root);
        ASSERT_TRUE(unlink(path) == 0);
        /* Unreadable or garbage: not taken. */
        tree_state(root, "cpu0", 2000000, "yes\n");
        tree_write(root, "1\n", "cpu0/ps:bogus/inefficient");
        tree_write(root, "1\n", "cpu0/notastate/inefficient");

        ASSERT_OK(energy_model_inefficient_khz(root, &cpus, table, ELEMENTSOF(table), &khz, &n));
        ASSERT_EQ(n, 2);
        ASSERT_EQ(khz[0], 1000000);
        ASSERT_EQ(khz[1], 1500000);
}

TEST(no_energy_model) {
        _cleanup_(treep) char *root = tree_new();
        _cleanup_free_ uint32_t *khz = NULL;
        cpu_set_t cpus = cpus_of(0, 0);
        char path[512];
        size_t n = 7;

        ASSERT_TRUE(root);
        /* An empty energy_model/ (a kernel with CONFIG_ENERGY_MODEL and no domain: x86), and none at all. */
        ASSERT_OK(energy_model_inefficient_khz(root, &cpus, table, ELEMENTSOF(table), &khz, &n));
        ASSERT_TRUE(!khz && n == 0);
        (void) snprintf(path, sizeof(path), "%s/absent", root);
        n = 7;
        ASSERT_OK(energy_model_inefficient_khz(path, &cpus, table, ELEMENTSOF(table), &khz, &n));
        ASSERT_TRUE(!khz && n == 0);
        /* A cpus file that is no CPU list. */
        tree_write(root, "all\n", "cpu0/cpus");
        tree_state(root, "cpu0", 1000000, "1\n");
        ASSERT_OK(energy_model_inefficient_khz(root, &cpus, table, ELEMENTSOF(table), &khz, &n));
        ASSERT_TRUE(!khz && n == 0);
        /* No table (a continuous policy): nothing to flag. */
        tree_write(root, "0\n", "cpu0/cpus");
        ASSERT_OK(energy_model_inefficient_khz(root, &cpus, NULL, 0, &khz, &n));
        ASSERT_TRUE(!khz && n == 0);
        ASSERT_OK(energy_model_inefficient_khz(root, &cpus, table, ELEMENTSOF(table), &khz, &n));
        ASSERT_EQ(n, 1);
        ASSERT_EQ(khz[0], 1000000);
}
