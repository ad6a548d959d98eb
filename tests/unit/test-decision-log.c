/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "governor.h"
#include "test.h"

TEST(wraps_keeping_the_newest) {
        DecisionLog l;

        ASSERT_OK(decision_log_init(&l, 3));
        for (unsigned i = 0; i < 5; i++)
                decision_log_append(&l, &(Decision) { .new_khz = 1000 * (i + 1) }, i, NULL);
        ASSERT_EQ(l.count, 3);
        ASSERT_EQ(l.total, 5);
        ASSERT_EQ(decision_log_get(&l, 0)->decision.new_khz, 3000);
        ASSERT_EQ(decision_log_get(&l, 2)->decision.new_khz, 5000);
        ASSERT_EQ(decision_log_get(&l, 2)->written_ns, 4);
        ASSERT_TRUE(decision_log_get(&l, 3) == NULL);
        decision_log_done(&l);
}

TEST(empty_and_invalid) {
        DecisionLog l;

        ASSERT_ERROR(decision_log_init(&l, 0), EINVAL);
        ASSERT_OK(decision_log_init(&l, 1));
        ASSERT_TRUE(decision_log_get(&l, 0) == NULL);
        decision_log_append(&l, &(Decision) { .new_khz = 7 }, 1, NULL);
        decision_log_append(&l, &(Decision) { .new_khz = 8 }, 2, NULL);
        ASSERT_EQ(l.count, 1);
        ASSERT_EQ(decision_log_get(&l, 0)->decision.new_khz, 8);
        decision_log_done(&l);
}

DEFINE_TEST_MAIN
