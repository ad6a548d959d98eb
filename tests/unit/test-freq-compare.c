/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for freq-compare.c: our frequency against the kernel's over time, per policy. */

#include <errno.h>
#include <stdlib.h>

#include "governor.h"
#include "macro.h"
#include "test.h"
#include "topology.h"

#define MS UINT64_C(1000000)

static Topology *two_policies(void) {
        Topology *t = NULL;

        if (topology_new(&t) < 0)
                abort();
        for (unsigned id = 0; id < 2; id++) {
                PolicyDesc p = { .id = id * 2, .cpuinfo_min_khz = 500000, .cpuinfo_max_khz = 2000000 };

                CPU_ZERO(&p.cpus);
                CPU_SET(id * 2, &p.cpus);
                CPU_SET(id * 2 + 1, &p.cpus);
                if (topology_add_policy(t, &p) < 0)
                        abort();
        }
        return t;
}

TEST(time_weighted) {
        _cleanup_(topology_freep) Topology *t = two_policies();
        _cleanup_(freq_compare_freep) FreqCompare *c = NULL;
        FreqCompareStats st;

        ASSERT_OK(freq_compare_new(t, &c));
        ASSERT_TRUE(!freq_compare_any_kernel(c));
        freq_compare_ours(c, 0, 0, 500000);
        freq_compare_ours(c, 1, 0, 500000);
        /* Nothing compared before the kernel's first value; one event per CPU of the policy is one change. */
        ASSERT_OK(freq_compare_kernel(c, 0, 10 * MS, 500000));
        ASSERT_OK(freq_compare_kernel(c, 1, 10 * MS, 500000));
        freq_compare_ours(c, 0, 20 * MS, 1000000);          /* 20..30 ms: 500 MHz apart */
        ASSERT_OK(freq_compare_kernel(c, 0, 30 * MS, 1000000));
        ASSERT_OK(freq_compare_kernel(c, 1, 30 * MS, 1000000));
        ASSERT_OK(freq_compare_kernel(c, 0, 50 * MS, 2000000)); /* 50..60 ms: 1 GHz apart */
        freq_compare_ours(c, 0, 45 * MS, 1000000);          /* late and the same: no change, counted at 50 ms */
        freq_compare_finish(c, 60 * MS);
        ASSERT_ERROR(freq_compare_kernel(c, 9, 60 * MS, 1), ENOENT);

        ASSERT_OK(freq_compare_stats(c, 0, &st));
        ASSERT_TRUE(st.kernel_seen);
        ASSERT_U64_EQ(st.compared_ns, 50 * MS);
        ASSERT_U64_EQ(st.agree_ns, 30 * MS);
        ASSERT_U64_EQ(st.diff_khz_ns, 500000 * 10 * MS + 1000000 * 10 * MS);
        ASSERT_EQ(st.max_diff_khz, 1000000u);
        ASSERT_U64_EQ(st.kernel_changes, 2);
        ASSERT_U64_EQ(st.our_changes, 1);
        ASSERT_TRUE(freq_compare_any_kernel(c));

        ASSERT_OK(freq_compare_stats(c, 1, &st));
        ASSERT_TRUE(!st.kernel_seen);
        ASSERT_U64_EQ(st.compared_ns, 0);
        ASSERT_ERROR(freq_compare_stats(c, 2, &st), ENOENT);
}

DEFINE_TEST_MAIN
