/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for schedutil.c's frequency choice, rule by rule against kernel/sched/cpufreq_schedutil.c (6.x):
 * map_util_perf() + get_next_freq(), cpufreq_driver_resolve_freq() to the limits and table, the rate limit
 * (sugov_should_update_freq()), the busy hold (sugov_hold_freq()) and the iowait boost (sugov_iowait_boost(),
 * sugov_iowait_apply()). The rate-limit defaults per kernel version are test-governor-rate-limit.c's.
 */

#include <string.h>

#include "config.h"
#include "governor.h"
#include "macro.h"
#include "test.h"
#include "topology.h"

DEFINE_TEST_MAIN;

#define MS UINT64_C(1000000)
#define TICK_NS (4 * MS)

static uint32_t table_khz[] = { 800000, 1200000, 1600000, 2000000 };

/* One CPU, 0.8-2.0 GHz in four steps, full capacity, limits wide open. */
static PolicyDesc policy(void) {
        PolicyDesc p = {
                .id = 0, .cpuinfo_min_khz = 800000, .cpuinfo_max_khz = 2000000,
                .scaling_min_khz = 800000, .scaling_max_khz = 2000000,
                .frequencies_khz = table_khz, .n_frequencies = ELEMENTSOF(table_khz),
        };

        CPU_ZERO(&p.cpus);
        CPU_SET(0, &p.cpus);
        return p;
}

static Governor governor(const PolicyDesc *p, uint64_t rate_limit_usec, uint32_t cur_khz) {
        Config cfg;
        Governor g;

        config_set_defaults(&cfg);
        cfg.rate_limit_usec = rate_limit_usec;
        governor_init(&g, p, &cfg, cur_khz);
        return g;
}

TEST(util_to_khz_is_max_times_util_times_1_25_over_capacity) {
        PolicyDesc p = policy();

        /* 2.0 GHz x (512 + 512/4) / 1024 */
        ASSERT_EQ(governor_util_to_khz(&p, 512, 1280), 1250000u);
        /* map_util_perf() in integers: 511 + 127 = 638 */
        ASSERT_EQ(governor_util_to_khz(&p, 511, 1280), (uint32_t) (UINT64_C(2000000) * 638 / 1024));
        /* capped at the capacity: 900 x 1.25 > 1024 */
        ASSERT_EQ(governor_util_to_khz(&p, 900, 1280), 2000000u);
        ASSERT_EQ(governor_util_to_khz(&p, 0, 1280), 0u);
        /* a smaller CPU (capacity 512): its own max at its own full utilisation */
        p.capacity = 512;
        ASSERT_EQ(governor_capacity(&p), 512u);
        ASSERT_EQ(governor_util_to_khz(&p, 512, 1280), 2000000u);
        ASSERT_EQ(governor_util_to_khz(&p, 256, 1024), 1000000u);
}

TEST(target_resolves_to_the_table_and_limits) {
        PolicyDesc p = policy();
        Governor g = governor(&p, 1000, 2000000);

        /* raw 1.25 GHz: the lowest table entry at or above (CPUFREQ_RELATION_L) */
        ASSERT_EQ(governor_target_khz(&g, &p, 512), 1600000u);
        /* raw 0: the minimum */
        ASSERT_EQ(governor_target_khz(&g, &p, 0), 800000u);
        /* scaling_max_freq 1.2 GHz caps it; scaling_min_freq 1.6 GHz floors it */
        p.scaling_max_khz = 1200000;
        ASSERT_EQ(governor_target_khz(&g, &p, 512), 1200000u);
        p.scaling_max_khz = 2000000;
        p.scaling_min_khz = 1600000;
        ASSERT_EQ(governor_target_khz(&g, &p, 10), 1600000u);
}

/* The Energy Model's inefficient OPPs (inefficient_khz): schedutil's CPUFREQ_RELATION_LE passes over them to
 * the next efficient entry, unless that is above scaling_max_freq (cpufreq_frequency_table_target()). */
TEST(target_skips_inefficient_entries) {
        static uint32_t inefficient_khz[] = { 1200000, 1600000 };
        PolicyDesc p = policy();
        Governor g = governor(&p, 1000, 2000000);

        p.inefficient_khz = inefficient_khz;
        p.n_inefficient = ELEMENTSOF(inefficient_khz);
        /* raw 1.25 GHz: 1.6 GHz is inefficient, 2.0 GHz is the next efficient entry */
        ASSERT_EQ(governor_target_khz(&g, &p, 512), 2000000u);
        /* raw ~0.9 GHz: past 1.2 and 1.6 GHz */
        ASSERT_EQ(governor_target_khz(&g, &p, 370), 2000000u);
        /* raw 0.8 GHz and below: the minimum, efficient */
        ASSERT_EQ(governor_target_khz(&g, &p, 0), 800000u);
        /* scaling_max_freq 1.6 GHz: 2.0 GHz is out of the limits, so 1.6 GHz, inefficient or not */
        p.scaling_max_khz = 1600000;
        ASSERT_EQ(governor_target_khz(&g, &p, 370), 1200000u);
        ASSERT_EQ(governor_target_khz(&g, &p, 512), 1600000u);
}

TEST(rate_limit) {
        PolicyDesc p = policy();
        Governor g = governor(&p, 2000, 800000); /* 2 ms */

        /* nothing to limit before the first change (last_freq_update_time = 0) */
        ASSERT_TRUE(governor_should_update(&g, 5 * MS));
        governor_commit(&g, 5 * MS, 1600000, true);
        ASSERT_EQ(g.cur_khz, 1600000u);
        ASSERT_TRUE(!governor_should_update(&g, 5 * MS + 1999999));
        ASSERT_TRUE(governor_should_update(&g, 7 * MS));
        /* a failed write counts as an attempt: the limit runs, the frequency in force stays */
        governor_commit(&g, 7 * MS, 2000000, false);
        ASSERT_EQ(g.cur_khz, 1600000u);
        ASSERT_TRUE(!governor_should_update(&g, 8 * MS));
        /* a limits change bypasses it (sugov_limits(): limits_changed → need_freq_update) */
        g.limits_changed = true;
        ASSERT_TRUE(governor_should_update(&g, 8 * MS));
}

TEST(busy_hold_keeps_a_busy_cpu_from_slowing_down) {
        PolicyDesc p = policy();
        Governor g = governor(&p, 1000, 800000);
        GovernorCpu busy = { .busy = true, .idle_calls = 7 };

        /* the first evaluation is never held (the kernel's next_freq starts at 0) */
        ASSERT_EQ(governor_next_khz(&g, &p, 1000, &busy), 2000000u);
        governor_commit(&g, MS, 2000000, true);
        /* still busy, no idle entry since: a lower demand does not lower it */
        ASSERT_EQ(governor_next_khz(&g, &p, 100, &busy), 2000000u);
        /* an idle entry since the previous evaluation: it may */
        busy.idle_calls = 8;
        ASSERT_EQ(governor_next_khz(&g, &p, 100, &busy), 800000u);
        /* raising is never held */
        ASSERT_EQ(governor_next_khz(&g, &p, 1000, &busy), 2000000u);
        /* capped by a rule's max_util: "always update to be in compliance" */
        busy.capped = true;
        ASSERT_EQ(governor_next_khz(&g, &p, 100, &busy), 800000u);
        /* a shared policy (no GovernorCpu) has no hold */
        ASSERT_EQ(governor_next_khz(&g, &p, 100, NULL), 800000u);
}

TEST(iowait_boost_doubles_halves_and_resets) {
        IowaitBoost b = {};

        /* no boost without an iowait wake-up */
        governor_iowait_boost(&b, 1 * MS, false, TICK_NS);
        ASSERT_EQ(governor_iowait_apply(&b, 1 * MS, 1024, TICK_NS), 0u);
        /* IOWAIT_BOOST_MIN, then doubling once per application */
        governor_iowait_boost(&b, 2 * MS, true, TICK_NS);
        ASSERT_EQ(b.boost, IOWAIT_BOOST_MIN);
        governor_iowait_boost(&b, 2 * MS, true, TICK_NS); /* pending already: no second doubling */
        ASSERT_EQ(governor_iowait_apply(&b, 2 * MS, 1024, TICK_NS), 128u);
        governor_iowait_boost(&b, 3 * MS, true, TICK_NS);
        ASSERT_EQ(governor_iowait_apply(&b, 3 * MS, 1024, TICK_NS), 256u);
        /* scaled to the CPU's capacity */
        governor_iowait_boost(&b, 4 * MS, true, TICK_NS);
        ASSERT_EQ(governor_iowait_peek(&b, 4 * MS, 512, TICK_NS), 256u);
        ASSERT_EQ(governor_iowait_apply(&b, 4 * MS, 512, TICK_NS), 256u);
        /* no new request: halved at each application, ended below the minimum */
        ASSERT_EQ(governor_iowait_apply(&b, 5 * MS, 1024, TICK_NS), 256u);
        ASSERT_EQ(governor_iowait_apply(&b, 6 * MS, 1024, TICK_NS), 128u);
        ASSERT_EQ(governor_iowait_apply(&b, 7 * MS, 1024, TICK_NS), 0u);
        ASSERT_EQ(b.boost, 0u);
        /* capped at 1024 */
        for (unsigned i = 0; i < 6; i++) {
                governor_iowait_boost(&b, (10 + i) * MS, true, TICK_NS);
                (void) governor_iowait_apply(&b, (10 + i) * MS, 1024, TICK_NS);
        }
        ASSERT_EQ(b.boost, 1024u);
        /* a tick without a hook call: reset ("the CPU appears to have been idle enough") */
        governor_iowait_boost(&b, 15 * MS + TICK_NS + 1, true, TICK_NS);
        ASSERT_EQ(b.boost, IOWAIT_BOOST_MIN);
        ASSERT_EQ(governor_iowait_peek(&b, 15 * MS + 3 * TICK_NS, 1024, TICK_NS), 0u);
}
