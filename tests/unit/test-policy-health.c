/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "actuator.h"
#include "test.h"

TEST(backoff_doubles_and_caps) {
        PolicyHealth h = {};
        uint64_t now = 1000000, attempts = 0;

        ASSERT_TRUE(policy_health_may_write(&h, now));
        ASSERT_TRUE(policy_health_failed(&h, POLICY_BACKING_OFF, -EIO, now));
        ASSERT_U64_EQ(h.backoff_usec, POLICY_BACKOFF_MIN_USEC);
        ASSERT_TRUE(!policy_health_may_write(&h, now + POLICY_BACKOFF_MIN_USEC - 1));
        ASSERT_TRUE(policy_health_may_write(&h, now + POLICY_BACKOFF_MIN_USEC));
        /* Same state again: no new log line. */
        ASSERT_TRUE(!policy_health_failed(&h, POLICY_BACKING_OFF, -EIO, now + POLICY_BACKOFF_MIN_USEC));
        ASSERT_U64_EQ(h.backoff_usec, 2 * POLICY_BACKOFF_MIN_USEC);

        /* A write tried every millisecond for a minute, as events would: a handful of attempts get through. */
        h = (PolicyHealth) {};
        for (uint64_t t = now; t < now + 60 * 1000000ULL; t += 1000)
                if (policy_health_may_write(&h, t)) {
                        attempts++;
                        (void) policy_health_failed(&h, POLICY_BACKING_OFF, -EIO, t);
                }
        ASSERT_TRUE(attempts >= 10 && attempts <= 20);
        ASSERT_U64_EQ(h.backoff_usec, POLICY_BACKOFF_MAX_USEC);
        ASSERT_U64_EQ(h.write_errors, attempts);
}

/* One governor read after a failed write (or a look) says what the policy is (drivers/cpufreq/cpufreq.c). */
TEST(diagnose) {
        /* inactive: its files answer EBUSY */
        ASSERT_EQ(policy_health_diagnose(POLICY_GOVERNED, -EBUSY, -EBUSY, false), POLICY_OFFLINE);
        ASSERT_EQ(policy_health_diagnose(POLICY_OFFLINE, 0, -EBUSY, false), POLICY_OFFLINE);
        /* another governor: another tool's now */
        ASSERT_EQ(policy_health_diagnose(POLICY_GOVERNED, -EINVAL, 0, false), POLICY_RELEASED);
        ASSERT_EQ(policy_health_diagnose(POLICY_OFFLINE, -EBUSY, 0, false), POLICY_RELEASED);
        /* still ours: a fault, also an EBUSY of the write alone */
        ASSERT_EQ(policy_health_diagnose(POLICY_GOVERNED, -EIO, 0, true), POLICY_BACKING_OFF);
        ASSERT_EQ(policy_health_diagnose(POLICY_GOVERNED, -EBUSY, 0, true), POLICY_BACKING_OFF);
        ASSERT_EQ(policy_health_diagnose(POLICY_BACKING_OFF, -EBUSY, 0, true), POLICY_BACKING_OFF);
        ASSERT_EQ(policy_health_diagnose(POLICY_OFFLINE, -EIO, 0, true), POLICY_BACKING_OFF);
        ASSERT_EQ(policy_health_diagnose(POLICY_GOVERNED, -EIO, -EIO, false), POLICY_BACKING_OFF);
        /* offline, then on userspace again: back, whether a look found it or a write that met it still inactive
         * (a CPU that came back between the write and the read; once a back-off warning and a later "writes work
         * again" in test-faults) */
        ASSERT_EQ(policy_health_diagnose(POLICY_OFFLINE, 0, 0, true), POLICY_GOVERNED);
        ASSERT_EQ(policy_health_diagnose(POLICY_OFFLINE, -EBUSY, 0, true), POLICY_GOVERNED);
}

TEST(recovery) {
        PolicyHealth h = {};

        ASSERT_TRUE(!policy_health_succeeded(&h, 5));
        ASSERT_TRUE(policy_health_failed(&h, POLICY_OFFLINE, -EBUSY, 10));
        ASSERT_STREQ(policy_health_state_to_string(h.state), "offline");
        ASSERT_TRUE(policy_health_succeeded(&h, 10 + POLICY_BACKOFF_MIN_USEC));
        ASSERT_EQ(h.state, POLICY_GOVERNED);
        ASSERT_U64_EQ(h.failures, 0);
        ASSERT_U64_EQ(h.write_errors, 1);
        ASSERT_U64_EQ(h.since_usec, 10 + POLICY_BACKOFF_MIN_USEC);
        /* The back-off starts over after a recovery. */
        ASSERT_TRUE(policy_health_failed(&h, POLICY_BACKING_OFF, -EIO, 100000));
        ASSERT_U64_EQ(h.backoff_usec, POLICY_BACKOFF_MIN_USEC);
}

TEST(released_is_final) {
        PolicyHealth h = {};

        ASSERT_TRUE(policy_health_failed(&h, POLICY_RELEASED, -EINVAL, 7));
        ASSERT_TRUE(!policy_health_may_write(&h, UINT64_MAX));
        ASSERT_TRUE(!policy_health_succeeded(&h, 8));
        ASSERT_EQ(h.state, POLICY_RELEASED);
        ASSERT_STREQ(policy_health_state_to_string(h.state), "released");
        ASSERT_TRUE(policy_health_state_to_string(_POLICY_HEALTH_STATE_MAX) == NULL);
}

DEFINE_TEST_MAIN
