/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for daemon/shared/crash-point.c: the SCHEDFREQD_CRASH_AT syntax (the points themselves are exercised by
 * tests/integration/test-kills.sh). */

#include <errno.h>
#include <signal.h>

#include "crash-point.h"
#include "test.h"

TEST(parse_valid) {
        char name[64];
        unsigned n;
        int sig;

        ASSERT_EQ(crash_point_parse("take-over:switched:SEGV", name, sizeof(name), &n, &sig), 0);
        ASSERT_STREQ(name, "take-over:switched");
        ASSERT_EQ(n, 1);
        ASSERT_EQ(sig, SIGSEGV);

        ASSERT_EQ(crash_point_parse("restore:put-back#2:SIGKILL", name, sizeof(name), &n, &sig), 0);
        ASSERT_STREQ(name, "restore:put-back");
        ASSERT_EQ(n, 2);
        ASSERT_EQ(sig, SIGKILL);

        ASSERT_EQ(crash_point_parse("start-up#10:6", name, sizeof(name), &n, &sig), 0);
        ASSERT_STREQ(name, "start-up");
        ASSERT_EQ(n, 10);
        ASSERT_EQ(sig, SIGABRT);
}

TEST(parse_invalid) {
        static const char *const bad[] = {
                "", "start-up", "start-up:", ":SEGV", "#2:SEGV", "start-up#:SEGV", "start-up#0:SEGV",
                "start-up#x:SEGV", "start-up#2x:SEGV", "start-up:SIGNOPE", "start-up:0", "start-up:999",
                "start-up:segv",
                "a-name-longer-than-the-buffer-given-to-the-parser-in-this-test:SEGV",
        };
        char name[32];
        unsigned n = 7;
        int sig = 7;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                if (crash_point_parse(bad[i], name, sizeof(name), &n, &sig) != -EINVAL)
                        TEST_FAIL("accepted \"%s\"", bad[i]);
        /* Untouched on failure. */
        ASSERT_EQ(n, 7);
        ASSERT_EQ(sig, 7);
}

TEST(unset_is_a_no_op) {
        /* No SCHEDFREQD_CRASH_AT in the test's environment (run-tests does not set it): passing is harmless. */
        unsetenv("SCHEDFREQD_CRASH_AT");
        crash_point("start-up");
        crash_point("start-up");
        ASSERT_EQ(crash_point_state, CRASH_POINT_OFF);
}

DEFINE_TEST_MAIN
