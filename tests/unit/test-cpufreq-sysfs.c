/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq-sysfs: the pure helpers, discovery of the live machine (read-only: a consistent topology or
 * -ENODEV), and, inside a private mount namespace over a fixture tree, discovery against the fixture's
 * expected topology.
 *
 * The fixture test exists only when SCHEDFREQD_TEST_SYSFS_CASE names a tests/fixtures/sysfs/<case> directory
 * whose cpu/ tree is bind-mounted over /sys/devices/system/cpu (tests/integration/test-discovery.sh does
 * that): libcpupower's paths are hard-coded, so a namespace is the only way to show it another tree. The case
 * holds expected.ini (compared through topology_write() of both sides) and dirs ("ID DIR" per policy, DIR
 * relative to /sys/devices/system/cpu), or expected-errno. Likewise SCHEDFREQD_TEST_TOPOLOGY names the
 * topology file the cpufreq emulator serves (tests/emu-run), for discover_emulated.
 */

#include <cpufreq.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "autogroup.h"
#include "sched-features.h"
#include "governor.h"
#include "macro.h"
#include "string-util.h"
#include "test.h"
#include "topology.h"

DEFINE_TEST_MAIN;

TEST(parse_u32) {
        uint32_t v = 7;

        ASSERT_OK(parse_u32_line("0", &v));
        ASSERT_EQ(v, 0);
        ASSERT_OK(parse_u32_line("1400000\n", &v));
        ASSERT_EQ(v, 1400000);
        ASSERT_OK(parse_u32_line("4294967295", &v));
        ASSERT_U64_EQ(v, UINT32_MAX);
        ASSERT_ERROR(parse_u32_line("4294967296", &v), ERANGE);
        ASSERT_ERROR(parse_u32_line("<unsupported>", &v), EINVAL);
        ASSERT_ERROR(parse_u32_line("", &v), EINVAL);
        ASSERT_ERROR(parse_u32_line("-1", &v), EINVAL);
        ASSERT_ERROR(parse_u32_line(" 1", &v), EINVAL);
        ASSERT_ERROR(parse_u32_line("1 ", &v), EINVAL);
        ASSERT_ERROR(parse_u32_line("1\n\n", &v), EINVAL);
        ASSERT_U64_EQ(v, UINT32_MAX); /* untouched on failure */
}

TEST(parse_policy_link) {
        unsigned id = 99;

        ASSERT_OK(cpufreq_sysfs_parse_policy_link("../cpufreq/policy4", &id));
        ASSERT_EQ(id, 4);
        ASSERT_OK(cpufreq_sysfs_parse_policy_link("policy0", &id));
        ASSERT_EQ(id, 0);
        ASSERT_OK(cpufreq_sysfs_parse_policy_link("/sys/devices/system/cpu/cpufreq/policy127", &id));
        ASSERT_EQ(id, 127);
        ASSERT_ERROR(cpufreq_sysfs_parse_policy_link("../cpu0/cpufreq", &id), EINVAL);
        ASSERT_ERROR(cpufreq_sysfs_parse_policy_link("../cpufreq/policy", &id), EINVAL);
        ASSERT_ERROR(cpufreq_sysfs_parse_policy_link("../cpufreq/policyx", &id), EINVAL);
        ASSERT_ERROR(cpufreq_sysfs_parse_policy_link("../cpufreq/policy1a", &id), EINVAL);
        ASSERT_EQ(id, 127);
}

TEST(cpus_from_list) {
        struct cpufreq_affected_cpus c5 = { .cpu = 5 }, c2 = { .cpu = 2, .next = &c5 }, c0 = { .cpu = 0, .next = &c2 };
        struct cpufreq_affected_cpus big = { .cpu = CPU_SETSIZE };
        cpu_set_t set;

        ASSERT_OK(cpufreq_sysfs_cpus_from_list(&c0, &set));
        ASSERT_EQ(CPU_COUNT(&set), 3);
        ASSERT_TRUE(CPU_ISSET(0, &set) && CPU_ISSET(2, &set) && CPU_ISSET(5, &set));
        ASSERT_OK(cpufreq_sysfs_cpus_from_list(NULL, &set));
        ASSERT_EQ(CPU_COUNT(&set), 0);
        ASSERT_ERROR(cpufreq_sysfs_cpus_from_list(&big, &set), ERANGE);
}

TEST(join_governors) {
        struct cpufreq_available_governors g3 = { .governor = (char *) "schedutil" },
                                           g2 = { .governor = (char *) "userspace", .next = &g3 },
                                           g1 = { .governor = (char *) "performance", .next = &g2 };
        char buf[64], small[16];

        ASSERT_OK(cpufreq_sysfs_join_governors(&g1, buf, sizeof(buf)));
        ASSERT_STREQ(buf, "performance userspace schedutil");
        ASSERT_OK(cpufreq_sysfs_join_governors(NULL, buf, sizeof(buf)));
        ASSERT_STREQ(buf, "");
        ASSERT_ERROR(cpufreq_sysfs_join_governors(&g1, small, sizeof(small)), ENOBUFS);
        ASSERT_STREQ(small, "");
        /* Exactly fitting: 9 characters and the NUL. */
        ASSERT_OK(cpufreq_sysfs_join_governors(&g3, buf, 10));
        ASSERT_STREQ(buf, "schedutil");
}

TEST(normalize_table) {
        uint32_t t[] = { 2401000, 2400000, 2000000, 800000, 2000000, 3000000, 400000 };
        uint32_t one[] = { 1000 };

        /* Descending (acpi-cpufreq), a duplicate, a boost entry above cpuinfo_max and one below cpuinfo_min. */
        ASSERT_EQ(cpufreq_sysfs_normalize_table(t, ELEMENTSOF(t), 800000, 2401000), 4);
        ASSERT_EQ(t[0], 800000);
        ASSERT_EQ(t[1], 2000000);
        ASSERT_EQ(t[2], 2400000);
        ASSERT_EQ(t[3], 2401000);
        ASSERT_EQ(cpufreq_sysfs_normalize_table(one, 1, 2000, 3000), 0);
        ASSERT_EQ(cpufreq_sysfs_normalize_table(NULL, 0, 0, 0), 0);
}

/* What every discovered topology must satisfy, fixture or live machine. */
static bool topology_consistent(const Topology *t) {
        cpu_set_t seen;

        CPU_ZERO(&seen);
        for (size_t i = 0; i < t->n_policies; i++) {
                const PolicyDesc *p = &t->policies[i];
                cpu_set_t both, online;
                _cleanup_free_ char *dir = NULL, *found_dir = NULL;
                unsigned cpu, found_cpu;

                CPU_AND(&both, &seen, &p->cpus);
                CPU_AND(&online, &t->online, &p->cpus);
                if (CPU_COUNT(&p->cpus) == 0 || CPU_COUNT(&both) > 0 || CPU_COUNT(&online) == 0)
                        return false;
                if (i > 0 && t->policies[i - 1].id >= p->id)
                        return false;
                if (p->cpuinfo_min_khz == 0 || p->cpuinfo_min_khz > p->cpuinfo_max_khz ||
                    p->scaling_min_khz > p->scaling_max_khz)
                        return false;
                for (size_t k = 1; k < p->n_frequencies; k++)
                        if (p->frequencies_khz[k - 1] >= p->frequencies_khz[k])
                                return false;
                if (cpufreq_sysfs_policy_dir(p, &dir) < 0)
                        return false;
                /* What discovery found is what a lookup now finds: the take-over relies on it. */
                if (!p->sysfs_found || cpufreq_sysfs_policy_locate(p, &found_cpu, &found_dir) < 0 ||
                    cpufreq_sysfs_policy_cpu(p, &cpu) < 0 || found_cpu != cpu || !streq(found_dir, dir))
                        return false;
                CPU_OR(&seen, &seen, &p->cpus);
        }
        return true;
}

TEST(discover_live) {
        _cleanup_(topology_freep) Topology *t = NULL, *again = NULL;
        _cleanup_free_ char *text = NULL, *text2 = NULL, *error = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        int r;

        r = cpufreq_discover(&t);
        if (r == -ENODEV)
                return; /* no cpufreq driver (these VMs): the error the caller turns into a message */
        ASSERT_OK(r);
        ASSERT_TRUE(topology_consistent(t));

        /* What `schedfreqd topology` prints must be readable by `schedfreqd replay --topology`. */
        text = topology_to_string(t);
        ASSERT_TRUE(text);
        f = fmemopen(text, strlen(text), "r");
        ASSERT_TRUE(f);
        ASSERT_OK(topology_parse_file(f, "discovered", &again, &error));
        text2 = topology_to_string(again);
        ASSERT_STREQ(text2, text);
}

static int read_file(const char *path, char **ret) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t size = 0;

        if (!f)
                return -errno;
        if (getdelim(&buf, &size, '\0', f) < 0) {
                free(buf);
                return -EIO;
        }
        *ret = buf;
        return 0;
}

static void check_dirs(const Topology *t, const char *case_dir) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        char *save = NULL;
        size_t n = 0;

        ASSERT_TRUE(asprintf(&path, "%s/dirs", case_dir) > 0);
        ASSERT_OK(read_file(path, &text));
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
                _cleanup_free_ char *dir = NULL, *want = NULL;
                unsigned id;
                char rel[256];

                ASSERT_EQ(sscanf(line, "%u %255s", &id, rel), 2);
                ASSERT_TRUE(n < t->n_policies);
                ASSERT_EQ(t->policies[n].id, id);
                ASSERT_OK(cpufreq_sysfs_policy_dir(&t->policies[n], &dir));
                ASSERT_TRUE(asprintf(&want, SYSFS_CPU_DIR "/%s", rel) > 0);
                ASSERT_STREQ(dir, want);
        }
        ASSERT_EQ(n, t->n_policies);
}

static void test_discover_fixture(void) {
        const char *case_dir = getenv("SCHEDFREQD_TEST_SYSFS_CASE");
        _cleanup_(topology_freep) Topology *t = NULL, *expected = NULL;
        _cleanup_free_ char *path = NULL, *errno_name = NULL, *error = NULL, *got = NULL, *want = NULL;
        int r;

        ASSERT_TRUE(asprintf(&path, "%s/expected-errno", case_dir) > 0);
        if (read_file(path, &errno_name) >= 0) {
                ASSERT_STREQ(errno_name, "ENODEV\n");
                ASSERT_ERROR(cpufreq_discover(&t), ENODEV);
                return;
        }

        free(path);
        ASSERT_TRUE(asprintf(&path, "%s/expected.ini", case_dir) > 0);
        r = topology_load(path, &expected, &error);
        if (r < 0)
                TEST_FAIL("%s", error ? error : strerror(-r));
        ASSERT_OK(cpufreq_discover(&t));
        ASSERT_TRUE(topology_consistent(t));
        /* [system] autogroup is this machine's, not the fixture's (/proc/sys, /sys/fs/cgroup: test-autogroup). */
        expected->autogroup = autogroup_applies(NULL);
        expected->no_delayed_dequeue = !sched_delays_dequeue(NULL);

        got = topology_to_string(t);
        want = topology_to_string(expected);
        ASSERT_TRUE(got && want);
        if (!streq(got, want))
                TEST_FAIL("discovered topology differs from %s\n--- expected\n%s--- discovered\n%s", path, want, got);
        check_dirs(t, case_dir);
}

/*
 * Under the cpufreq emulator serving the topology file SCHEDFREQD_TEST_TOPOLOGY: discovery gives that
 * topology back, once the defaults the emulator applies are filled in (tests/emu/policy.c policy_init():
 * the driver's default governors, the default governor, schedutil's default rate_limit_us; the current
 * frequency is the governor's).
 */
static void test_discover_emulated(void) {
        const char *path = getenv("SCHEDFREQD_TEST_TOPOLOGY");
        _cleanup_(topology_freep) Topology *t = NULL, *expected = NULL;
        _cleanup_free_ char *error = NULL, *got = NULL, *want = NULL;
        bool has_global_rate_limit = false;
        uint32_t global_rate_limit = 0;
        int r;

        r = topology_load(path, &expected, &error);
        if (r < 0)
                TEST_FAIL("%s", error ? error : strerror(-r));
        ASSERT_OK(cpufreq_discover(&t));
        ASSERT_TRUE(topology_consistent(t));
        ASSERT_EQ(t->n_policies, expected->n_policies);
        for (size_t i = 0; i < expected->n_policies; i++) {
                PolicyDesc *e = &expected->policies[i];

                const PolicyDesc *d = &t->policies[i];

                /* schedutil's tunable: the emulated kernel (6.12+) creates it with latency x 1.5; the fixtures'
                 * drivers have global tunables, so the first schedutil policy's value is everyone's. */
                if (!e->governor[0] || streq(e->governor, "schedutil")) {
                        if (!has_global_rate_limit) {
                                global_rate_limit = e->has_rate_limit ? e->rate_limit_us
                                                                      : (uint32_t) governor_default_rate_limit_usec(
                                                                                e->transition_latency_ns);
                                has_global_rate_limit = true;
                        }
                        if (streq(d->governor, "schedutil")) {
                                e->has_rate_limit = true;
                                e->rate_limit_us = global_rate_limit;
                        }
                }

                if (!e->governors[0])
                        strcpy(e->governors, topology_default_governors(e->driver));
                /* The governor moves the frequency (powersave pins the minimum): any value within limits. */
                ASSERT_TRUE(d->cur_khz >= d->scaling_min_khz && d->cur_khz <= d->scaling_max_khz);
                e->cur_khz = d->cur_khz;
                if (!e->governor[0])
                        strcpy(e->governor, t->policies[i].governor);
        }
        /* The emulator serves cpufreq only: autogroup is the real kernel's (test-autogroup). */
        expected->autogroup = autogroup_applies(NULL);
        expected->no_delayed_dequeue = !sched_delays_dequeue(NULL);
        got = topology_to_string(t);
        want = topology_to_string(expected);
        ASSERT_TRUE(got && want);
        if (!streq(got, want))
                TEST_FAIL("discovered topology differs from %s\n--- expected\n%s--- discovered\n%s", path, want, got);
}

/* Registered only with a fixture mounted or the emulator running (see the top of this file): elsewhere they
 * would read the real /sys. */
__attribute__((constructor)) static void register_discover_fixture(void) {
        if (getenv("SCHEDFREQD_TEST_SYSFS_CASE") && test_n_cases < TEST_MAX)
                test_cases[test_n_cases++] = (TestCase) { "discover_fixture", test_discover_fixture };
        if (getenv("SCHEDFREQD_TEST_TOPOLOGY") && test_n_cases < TEST_MAX)
                test_cases[test_n_cases++] = (TestCase) { "discover_emulated", test_discover_emulated };
}
