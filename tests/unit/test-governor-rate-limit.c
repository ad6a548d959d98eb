/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the rate limit (issue #9 item 4): kernel release parsing (daemon/shared/kernel-version.c), the
 * per-version cpufreq_policy_transition_delay_us() rules, the precedence config > schedutil's own tunable >
 * computed default, and the start-up log text (daemon/governor/schedutil.c).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "governor.h"
#include "kernel-version.h"
#include "macro.h"
#include "test.h"

#define ETERNAL UINT64_C(4294967295) /* CPUFREQ_ETERNAL as cpuinfo_transition_latency shows it */

TEST(kernel_version_parse) {
        static const struct {
                const char *release;
                int r;
                unsigned major, minor;
        } cases[] = {
                { "6.18.44-fc-v1252", 0, 6, 18 },
                { "6.12.0-rc3+", 0, 6, 12 },
                { "6.9", 0, 6, 9 },
                { "6.10.0", 0, 6, 10 },
                { "4.19.0-27-amd64", 0, 4, 19 },
                { "4.13.16-041316-generic", 0, 4, 13 },
                { "5.15.153.1-microsoft-standard-WSL2", 0, 5, 15 },
                { "3.10.0-1160.el7.x86_64", 0, 3, 10 },
                { "6.1.0-28-cloud-amd64", 0, 6, 1 },
                { "10.255-future", 0, 10, 255 },
                { "", -EINVAL, 0, 0 },
                { "6", -EINVAL, 0, 0 },
                { "6.", -EINVAL, 0, 0 },
                { "v6.1", -EINVAL, 0, 0 },
                { "0.1", -EINVAL, 0, 0 },
                { "6.256", -EINVAL, 0, 0 },
                { "99999999999.1", -EINVAL, 0, 0 },
                { "6-rc1", -EINVAL, 0, 0 },
                { ".6.1", -EINVAL, 0, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                unsigned code = 12345;
                int r = kernel_version_parse(cases[i].release, &code);

                if (r != cases[i].r)
                        TEST_FAIL("\"%s\": r=%d, expected %d", cases[i].release, r, cases[i].r);
                if (r == 0 && (KERNEL_VERSION_MAJOR(code) != cases[i].major ||
                               KERNEL_VERSION_MINOR(code) != cases[i].minor))
                        TEST_FAIL("\"%s\": %u.%u", cases[i].release, KERNEL_VERSION_MAJOR(code),
                                  KERNEL_VERSION_MINOR(code));
                if (r < 0 && code != 12345)
                        TEST_FAIL("\"%s\": output clobbered on failure", cases[i].release);
        }
        ASSERT_TRUE(KERNEL_VERSION_CODE(6, 9) < KERNEL_VERSION_CODE(6, 12));
        ASSERT_TRUE(KERNEL_VERSION_CODE(4, 255) < KERNEL_VERSION_CODE(5, 0));
}

TEST(kernel_version_running) {
        unsigned code = 0;

        /* Whatever this machine runs, it parses (Linux releases always start "MAJOR.MINOR"). */
        ASSERT_OK(kernel_version_running(&code));
        ASSERT_TRUE(KERNEL_VERSION_MAJOR(code) >= 3);
}

/* reference §3.2, row by row, with the boundary versions and the latencies that hit each branch. */
TEST(rate_limit_rules_by_version) {
        static const struct {
                unsigned major, minor;
                uint64_t latency_ns;
                uint64_t usec;
                const char *rule;
        } cases[] = {
                /* <= 4.13: sugov_init(): LATENCY_MULTIPLIER x latency_us, no cap. */
                { 4, 9, 0, 1000, "Linux 4.13 and older" },
                { 4, 9, 999, 1000, "Linux 4.13 and older" },        /* < 1 us is 0 us */
                { 4, 13, 10000, 10000, "Linux 4.13 and older" },
                { 4, 13, 1000000, 1000000, "Linux 4.13 and older" },
                { 4, 13, ETERNAL, UINT64_C(4294967000), "Linux 4.13 and older" },
                { 3, 10, 100000, 100000, "Linux 4.13 and older" },
                /* 4.14 - 6.8: min(1000 x latency_us, 10 ms). */
                { 4, 14, 0, 1000, "Linux 4.14-6.8" },
                { 4, 14, 5000, 5000, "Linux 4.14-6.8" },
                { 5, 15, 10000, 10000, "Linux 4.14-6.8" },
                { 6, 1, 20000, 10000, "Linux 4.14-6.8" },
                { 6, 8, 1000000, 10000, "Linux 4.14-6.8" },
                { 6, 8, ETERNAL, 10000, "Linux 4.14-6.8" },
                /* 6.9 - 6.11: min(1000 x latency_us, 2 ms), but a latency above 2 ms as it is. */
                { 6, 9, 0, 1000, "Linux 6.9-6.11" },
                { 6, 9, 1000, 1000, "Linux 6.9-6.11" },
                { 6, 9, 10000, 2000, "Linux 6.9-6.11" },
                { 6, 10, 2000000, 2000, "Linux 6.9-6.11" },        /* 2000 us is not above the cap */
                { 6, 10, 2001000, 2001, "Linux 6.9-6.11" },
                { 6, 11, 5000000, 5000, "Linux 6.9-6.11" },
                { 6, 11, ETERNAL, 4294967, "Linux 6.9-6.11" },
                /* 6.12+: latency_us x 1.5, 1 ms when 0. */
                { 6, 12, 0, 1000, "Linux 6.12+" },
                { 6, 12, 999, 1000, "Linux 6.12+" },
                { 6, 12, 1000000, 1500, "Linux 6.12+" },
                { 6, 18, 100000, 150, "Linux 6.12+" },
                { 6, 18, 61036, 91, "Linux 6.12+" },
                { 6, 17, ETERNAL, 6442450, "Linux 6.12+" },        /* Shawn Guo's 6.12 report */
                { 7, 0, 20000, 30, "Linux 6.12+" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *rule = NULL;
                uint64_t usec;

                usec = governor_kernel_rate_limit_usec(KERNEL_VERSION_CODE(cases[i].major, cases[i].minor),
                                                       cases[i].latency_ns, &rule);
                if (usec != cases[i].usec || !rule || !streq(rule, cases[i].rule))
                        TEST_FAIL("%u.%u, %" PRIu64 " ns: %" PRIu64 " us (%s), expected %" PRIu64 " us (%s)",
                                  cases[i].major, cases[i].minor, cases[i].latency_ns, usec, rule ?: "?",
                                  cases[i].usec, cases[i].rule);
        }

        /* Unknown version: the newest rule; and the 6.12+ helper the engine tests use agrees. */
        ASSERT_U64_EQ(governor_kernel_rate_limit_usec(0, 1000000, NULL), 1500);
        ASSERT_U64_EQ(governor_default_rate_limit_usec(ETERNAL), 6442450);
}

static PolicyDesc policy(uint64_t latency_ns, bool has_rate_limit, uint32_t rate_limit_us) {
        return (PolicyDesc) {
                .id = 2,
                .driver = "acpi-cpufreq",
                .cpuinfo_min_khz = 500000,
                .cpuinfo_max_khz = 2000000,
                .scaling_min_khz = 500000,
                .scaling_max_khz = 2000000,
                .transition_latency_ns = latency_ns,
                .governor = "schedutil",
                .has_rate_limit = has_rate_limit,
                .rate_limit_us = rate_limit_us,
        };
}

TEST(rate_limit_precedence) {
        PolicyDesc computed = policy(1000000, false, 0), kernel = policy(1000000, true, 7777);
        PolicyDesc zero = policy(1000000, true, 0);
        Config cfg;
        RateLimit rl;
        Governor g;

        config_set_defaults(&cfg);
        ASSERT_U64_EQ(cfg.rate_limit_usec, 0); /* auto */

        rl = governor_rate_limit_for_version(&computed, &cfg, KERNEL_VERSION_CODE(6, 1));
        ASSERT_EQ(rl.source, RATE_LIMIT_COMPUTED);
        ASSERT_U64_EQ(rl.usec, 10000);
        ASSERT_STREQ(rl.rule, "Linux 4.14-6.8");
        ASSERT_TRUE(!rl.version_unknown);

        rl = governor_rate_limit_for_version(&kernel, &cfg, KERNEL_VERSION_CODE(6, 1));
        ASSERT_EQ(rl.source, RATE_LIMIT_KERNEL);
        ASSERT_U64_EQ(rl.usec, 7777);

        /* 0 is a valid tunable value (no rate limit), not "unknown". */
        rl = governor_rate_limit_for_version(&zero, &cfg, KERNEL_VERSION_CODE(6, 18));
        ASSERT_EQ(rl.source, RATE_LIMIT_KERNEL);
        ASSERT_U64_EQ(rl.usec, 0);

        cfg.rate_limit_usec = 2500;
        rl = governor_rate_limit_for_version(&kernel, &cfg, KERNEL_VERSION_CODE(6, 1));
        ASSERT_EQ(rl.source, RATE_LIMIT_CONFIG);
        ASSERT_U64_EQ(rl.usec, 2500);

        /* governor_configure() applies the same choice (the running kernel's version for the computed one). */
        governor_init(&g, &kernel, &cfg, 500000);
        ASSERT_U64_EQ(g.rate_limit_ns, UINT64_C(2500000));
        cfg.rate_limit_usec = 0;
        governor_configure(&g, &kernel, &cfg);
        ASSERT_U64_EQ(g.rate_limit_ns, UINT64_C(7777000));
        governor_configure(&g, &computed, &cfg);
        ASSERT_U64_EQ(g.rate_limit_ns, governor_rate_limit(&computed, &cfg).usec * 1000);
}

TEST(rate_limit_log_text) {
        PolicyDesc computed = policy(1000000, false, 0), kernel = policy(1000000, true, 7777);
        PolicyDesc eternal = policy(ETERNAL, false, 0);
        char buf[256];
        Config cfg;
        RateLimit rl;

        config_set_defaults(&cfg);

        rl = governor_rate_limit_for_version(&computed, &cfg, KERNEL_VERSION_CODE(6, 18));
        governor_rate_limit_format(&rl, &computed, buf, sizeof(buf));
        ASSERT_STREQ(buf, "rate limit 1500 us (cpuinfo_transition_latency 1000000 ns, as Linux 6.12+ computes it)");

        rl = governor_rate_limit_for_version(&eternal, &cfg, KERNEL_VERSION_CODE(6, 8));
        governor_rate_limit_format(&rl, &eternal, buf, sizeof(buf));
        ASSERT_STREQ(buf, "rate limit 10000 us (cpuinfo_transition_latency 4294967295 ns = CPUFREQ_ETERNAL, as "
                          "Linux 4.14-6.8 computes it)");

        rl = governor_rate_limit_for_version(&computed, &cfg, 0);
        governor_rate_limit_format(&rl, &computed, buf, sizeof(buf));
        ASSERT_STREQ(buf, "rate limit 1500 us (cpuinfo_transition_latency 1000000 ns, as Linux 6.12+ computes it; "
                          "the running kernel's version is unknown, so the newest rule)");

        rl = governor_rate_limit_for_version(&kernel, &cfg, KERNEL_VERSION_CODE(6, 18));
        governor_rate_limit_format(&rl, &kernel, buf, sizeof(buf));
        ASSERT_STREQ(buf, "rate limit 7777 us (the kernel's schedutil/rate_limit_us)");

        cfg.rate_limit_usec = 2500;
        rl = governor_rate_limit_for_version(&kernel, &cfg, KERNEL_VERSION_CODE(6, 18));
        governor_rate_limit_format(&rl, &kernel, buf, sizeof(buf));
        ASSERT_STREQ(buf, "rate limit 2500 us (from the configuration)");
}

DEFINE_TEST_MAIN
