/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for tests/emu/fault.c: the fault rules of cpufreq-emu's .emu-faults, without FUSE. */

#include <errno.h>
#include <string.h>

#include "fault.h"
#include "test.h"

#define SETSPEED1 "cpufreq/policy1/scaling_setspeed"
#define GOVERNOR0 "cpufreq/policy0/scaling_governor"

/* Applies @text to @s; the reason of a refusal goes to @why. */
static int apply(FaultSet *s, const char *text, char *why) {
        return fault_set_apply(s, text, why, FAULT_WHY_MAX);
}

/* How many of @n ops @op on @path fail with -@error (any other result counts as a pass). */
static unsigned failures(FaultSet *s, FaultOp op, const char *path, unsigned n, int error) {
        unsigned k = 0;

        for (unsigned i = 0; i < n; i++)
                k += fault_set_check(s, op, path) == -error;
        return k;
}

TEST(errno_names_and_numbers) {
        ASSERT_EQ(fault_errno_from_string("EBUSY"), EBUSY);
        ASSERT_EQ(fault_errno_from_string("EIO"), EIO);
        ASSERT_EQ(fault_errno_from_string("EINVAL"), EINVAL);
        ASSERT_EQ(fault_errno_from_string("EAGAIN"), EAGAIN);
        ASSERT_EQ(fault_errno_from_string("EWOULDBLOCK"), EAGAIN);
        ASSERT_EQ(fault_errno_from_string("ENODEV"), ENODEV);
        ASSERT_EQ(fault_errno_from_string("EPERM"), EPERM);
        ASSERT_EQ(fault_errno_from_string("ENOSPC"), ENOSPC);
        ASSERT_EQ(fault_errno_from_string("16"), 16);
        ASSERT_EQ(fault_errno_from_string("511"), 511);
        ASSERT_ERROR(fault_errno_from_string("512"), EINVAL);
        ASSERT_ERROR(fault_errno_from_string("0"), EINVAL);
        ASSERT_ERROR(fault_errno_from_string("-5"), EINVAL);
        ASSERT_ERROR(fault_errno_from_string("ebusy"), EINVAL);
        ASSERT_ERROR(fault_errno_from_string("EFOO"), EINVAL);
        ASSERT_ERROR(fault_errno_from_string(""), EINVAL);
}

TEST(parse_good_commands) {
        char why[FAULT_WHY_MAX];
        FaultSet s = {};

        ASSERT_OK(apply(&s, "fail " SETSPEED1 " EBUSY\n", why));
        ASSERT_EQ(s.n_rules, 1);
        ASSERT_STREQ(s.rules[0].path, SETSPEED1);
        ASSERT_EQ(s.rules[0].error, EBUSY);
        ASSERT_EQ(s.rules[0].op, FAULT_OP_WRITE);
        ASSERT_EQ(s.rules[0].after, 0);
        ASSERT_EQ(s.rules[0].count, 0);
        ASSERT_TRUE(s.rules[0].prob == 1.0);
        ASSERT_U64_EQ(s.rules[0].seed, 1);

        ASSERT_OK(apply(&s, "  fail\tcpufreq/policy*/scaling_cur_freq 5 op=read after=3 count=2 prob=0.25 "
                            "seed=18446744073709551615  \r\n", why));
        ASSERT_EQ(s.n_rules, 2);
        ASSERT_STREQ(s.rules[1].path, "cpufreq/policy*/scaling_cur_freq");
        ASSERT_EQ(s.rules[1].error, EIO);
        ASSERT_EQ(s.rules[1].op, FAULT_OP_READ);
        ASSERT_EQ(s.rules[1].after, 3);
        ASSERT_EQ(s.rules[1].count, 2);
        ASSERT_TRUE(s.rules[1].prob == 0.25);
        ASSERT_U64_EQ(s.rules[1].seed, UINT64_MAX);

        /* Several lines, comments and blank lines; options in any order; count=inf. */
        ASSERT_OK(apply(&s, "# a comment\n\nfail cpu1/online EPERM count=inf op=open\nfail x EIO prob=0\n", why));
        ASSERT_EQ(s.n_rules, 4);
        ASSERT_EQ(s.rules[2].op, FAULT_OP_OPEN);
        ASSERT_EQ(s.rules[2].count, 0);
        ASSERT_TRUE(s.rules[3].prob == 0.0);

        /* Nothing at all is fine too. */
        ASSERT_OK(apply(&s, "", why));
        ASSERT_OK(apply(&s, "\n", why));
        ASSERT_EQ(s.n_rules, 4);
}

TEST(parse_bad_commands) {
        static const struct {
                const char *text;
                const char *why; /* a part of the reason */
        } bad[] = {
                { "frobnicate x EIO", "unknown command 'frobnicate'" },
                { "fail", "usage: fail PATH ERRNO" },
                { "fail " SETSPEED1, "usage: fail PATH ERRNO" },
                { "fail /sys/devices/system/cpu/cpufreq/policy1/scaling_setspeed EBUSY", "relative" },
                { "fail " SETSPEED1 " EFOO", "'EFOO': expected an errno" },
                { "fail " SETSPEED1 " 0", "expected an errno" },
                { "fail " SETSPEED1 " 600", "expected an errno" },
                { "fail " SETSPEED1 " EBUSY op=close", "op=close: expected write, read or open" },
                { "fail " SETSPEED1 " EBUSY count=0", "count=0: expected" },
                { "fail " SETSPEED1 " EBUSY count=-1", "count=-1" },
                { "fail " SETSPEED1 " EBUSY count=2x", "count=2x" },
                { "fail " SETSPEED1 " EBUSY count=4294967296", "count=4294967296" },
                { "fail " SETSPEED1 " EBUSY after=", "after=" },
                { "fail " SETSPEED1 " EBUSY after=+1", "after=+1" },
                { "fail " SETSPEED1 " EBUSY prob=1.5", "prob=1.5: expected a probability" },
                { "fail " SETSPEED1 " EBUSY prob=-0.1", "prob=-0.1" },
                { "fail " SETSPEED1 " EBUSY prob=nan", "prob=nan" },
                { "fail " SETSPEED1 " EBUSY prob=0.5x", "prob=0.5x" },
                { "fail " SETSPEED1 " EBUSY seed=18446744073709551616", "seed=" },
                { "fail " SETSPEED1 " EBUSY count=1 count=2", "count= given twice" },
                { "fail " SETSPEED1 " EBUSY cnt=1", "unknown option 'cnt=1'" },
                { "fail " SETSPEED1 " EBUSY 1", "unknown option '1'" },
                { "fail " SETSPEED1 " ENOSYS op=open", "fc->no_open" },
                { "fail cpufreq/policy0/a-very-long-name-that-goes-on-and-on-and-on-and-on EIO", "longer than 63" },
                { "clear a b", "usage: clear [PATH]" },
        };
        char why[FAULT_WHY_MAX];

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                FaultSet s = {};

                if (apply(&s, bad[i].text, why) != -EINVAL)
                        TEST_FAIL("'%s' was not refused with EINVAL", bad[i].text);
                if (!strstr(why, bad[i].why) || strncmp(why, "line 1: ", 8) != 0)
                        TEST_FAIL("'%s': reason '%s' does not say '%s'", bad[i].text, why, bad[i].why);
                ASSERT_EQ(s.n_rules, 0);
        }
        /* ENOSYS is fine where the kernel does not read it as "not implemented". */
        {
                FaultSet s = {};

                ASSERT_OK(apply(&s, "fail " SETSPEED1 " ENOSYS", why));
        }
}

TEST(all_or_nothing) {
        char why[FAULT_WHY_MAX];
        FaultSet s = {};

        ASSERT_OK(apply(&s, "fail a EIO\nfail b EIO", why));
        /* The clear and the first rule are good, the third line is not: nothing changes. */
        ASSERT_ERROR(apply(&s, "clear\nfail c EBUSY\nfail d EBUSY bogus=1\n", why), EINVAL);
        ASSERT_TRUE(strncmp(why, "line 3: ", 8) == 0);
        ASSERT_EQ(s.n_rules, 2);
        ASSERT_STREQ(s.rules[0].path, "a");
        ASSERT_STREQ(s.rules[1].path, "b");
}

TEST(too_many_rules) {
        char why[FAULT_WHY_MAX], text[2048] = "";
        FaultSet s = {};

        for (int i = 0; i < FAULT_RULES_MAX; i++)
                ASSERT_OK(apply(&s, "fail x EIO", why));
        ASSERT_ERROR(apply(&s, "fail x EIO", why), ENOSPC);
        ASSERT_TRUE(strstr(why, "at most 16 rules") != NULL);
        ASSERT_EQ(s.n_rules, FAULT_RULES_MAX);

        /* In one write, clear first makes room. */
        for (int i = 0; i < FAULT_RULES_MAX; i++)
                strcat(text, "fail y EIO\n");
        ASSERT_OK(apply(&s, "clear\n", why));
        ASSERT_OK(apply(&s, text, why));
        ASSERT_EQ(s.n_rules, FAULT_RULES_MAX);
}

TEST(count_then_spent) {
        char why[FAULT_WHY_MAX];
        FaultSet s = {};

        ASSERT_OK(apply(&s, "fail " SETSPEED1 " EBUSY count=3", why));
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, SETSPEED1), -EBUSY);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, SETSPEED1), -EBUSY);
        /* Other paths and other ops are not counted. */
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, "cpufreq/policy0/scaling_setspeed"), 0);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_READ, SETSPEED1), 0);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_OPEN, SETSPEED1), 0);
        ASSERT_TRUE(!fault_rule_spent(&s.rules[0]));
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, SETSPEED1), -EBUSY);
        ASSERT_TRUE(fault_rule_spent(&s.rules[0]));
        ASSERT_EQ(failures(&s, FAULT_OP_WRITE, SETSPEED1, 100, EBUSY), 0);
        ASSERT_U64_EQ(s.rules[0].hits, 3);
        ASSERT_U64_EQ(s.rules[0].seen, 3); /* a spent rule is no longer consulted */
}

TEST(unlimited_by_default) {
        char why[FAULT_WHY_MAX];
        FaultSet s = {};

        ASSERT_OK(apply(&s, "fail " SETSPEED1 " EIO", why));
        ASSERT_EQ(failures(&s, FAULT_OP_WRITE, SETSPEED1, 1000, EIO), 1000);
        ASSERT_TRUE(!fault_rule_spent(&s.rules[0]));
}

TEST(after_then_count) {
        char why[FAULT_WHY_MAX];
        FaultSet s = {};

        ASSERT_OK(apply(&s, "fail " GOVERNOR0 " EIO after=2 count=2", why));
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, GOVERNOR0), 0);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, GOVERNOR0), 0);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, GOVERNOR0), -EIO);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, GOVERNOR0), -EIO);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, GOVERNOR0), 0);
        ASSERT_U64_EQ(s.rules[0].hits, 2);
        ASSERT_U64_EQ(s.rules[0].seen, 4);
}

TEST(prob_is_seeded) {
        char why[FAULT_WHY_MAX];
        FaultSet a = {}, b = {}, c = {};
        unsigned na, nb, nc;

        ASSERT_OK(apply(&a, "fail " SETSPEED1 " EAGAIN prob=0.5 seed=42", why));
        ASSERT_OK(apply(&b, "fail " SETSPEED1 " EAGAIN prob=0.5 seed=42", why));
        ASSERT_OK(apply(&c, "fail " SETSPEED1 " EAGAIN prob=0.5 seed=43", why));
        na = failures(&a, FAULT_OP_WRITE, SETSPEED1, 1000, EAGAIN);
        nb = failures(&b, FAULT_OP_WRITE, SETSPEED1, 1000, EAGAIN);
        nc = failures(&c, FAULT_OP_WRITE, SETSPEED1, 1000, EAGAIN);
        /* Binomial(1000, 0.5): sd ~16, so 400..600 is more than 6 sd either way. */
        ASSERT_EQ(na, nb);
        ASSERT_TRUE(na >= 400 && na <= 600);
        ASSERT_TRUE(nc >= 400 && nc <= 600);
        ASSERT_U64_EQ(a.rules[0].hits, na);

        /* The same sequence, op by op, and a re-install starts it again. */
        ASSERT_OK(apply(&a, "clear\nfail " SETSPEED1 " EAGAIN prob=0.5 seed=42", why));
        ASSERT_OK(apply(&b, "clear\nfail " SETSPEED1 " EAGAIN prob=0.5 seed=42", why));
        for (int i = 0; i < 200; i++)
                ASSERT_EQ(fault_set_check(&a, FAULT_OP_WRITE, SETSPEED1),
                          fault_set_check(&b, FAULT_OP_WRITE, SETSPEED1));
        ASSERT_U64_EQ(a.rules[0].hits, b.rules[0].hits);

        /* Seed 0 works (splitmix64 spreads it), prob=0 never fails, count caps a prob rule. */
        ASSERT_OK(apply(&c, "clear\nfail a EIO prob=0.5 seed=0\nfail b EIO prob=0\nfail d EIO prob=0.9 count=5", why));
        nc = failures(&c, FAULT_OP_WRITE, "a", 1000, EIO);
        ASSERT_TRUE(nc >= 400 && nc <= 600);
        ASSERT_EQ(failures(&c, FAULT_OP_WRITE, "b", 1000, EIO), 0);
        ASSERT_EQ(failures(&c, FAULT_OP_WRITE, "d", 1000, EIO), 5);
}

TEST(glob_matching) {
        char why[FAULT_WHY_MAX];
        FaultSet s = {};

        ASSERT_OK(apply(&s, "fail cpufreq/policy*/scaling_setspeed EBUSY\n"
                            "fail cpu[0-9]*/online EPERM op=write", why));
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, "cpufreq/policy0/scaling_setspeed"), -EBUSY);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, "cpufreq/policy12/scaling_setspeed"), -EBUSY);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, "cpufreq/policy0/scaling_governor"), 0);
        /* FNM_PATHNAME: '*' stops at '/'. */
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, "cpufreq/policy0/schedutil/scaling_setspeed"), 0);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, "cpu3/online"), -EPERM);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, "cpufreq/online"), 0);
        ASSERT_U64_EQ(s.rules[0].hits, 2);
        ASSERT_U64_EQ(s.rules[1].hits, 1);
}

TEST(first_failing_rule_wins) {
        char why[FAULT_WHY_MAX];
        FaultSet s = {};

        /* The first rule lets one op through to the second; after that the first fails every op and the
         * second no longer sees any. */
        ASSERT_OK(apply(&s, "fail " SETSPEED1 " EBUSY after=1\nfail cpufreq/*/scaling_setspeed EIO", why));
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, SETSPEED1), -EIO);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, SETSPEED1), -EBUSY);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, SETSPEED1), -EBUSY);
        ASSERT_U64_EQ(s.rules[1].seen, 1);
}

TEST(clear) {
        char why[FAULT_WHY_MAX];
        FaultSet s = {};

        ASSERT_OK(apply(&s, "fail a EIO\nfail cpufreq/policy*/x EIO\nfail a EBUSY op=read\nfail b EIO", why));
        ASSERT_OK(apply(&s, "clear a", why));
        ASSERT_EQ(s.n_rules, 2);
        ASSERT_STREQ(s.rules[0].path, "cpufreq/policy*/x");
        ASSERT_STREQ(s.rules[1].path, "b");
        /* Exactly the PATH as written: a path the pattern matches is not the pattern. */
        ASSERT_OK(apply(&s, "clear cpufreq/policy0/x", why));
        ASSERT_EQ(s.n_rules, 2);
        ASSERT_OK(apply(&s, "clear cpufreq/policy*/x", why));
        ASSERT_EQ(s.n_rules, 1);
        ASSERT_OK(apply(&s, "clear", why));
        ASSERT_EQ(s.n_rules, 0);
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, "b"), 0);
}

TEST(listing) {
        char why[FAULT_WHY_MAX], buf[4096];
        FaultSet s = {};

        ASSERT_EQ(fault_set_format(&s, buf, sizeof(buf)), 0);
        ASSERT_STREQ(buf, "");

        ASSERT_OK(apply(&s, "fail " SETSPEED1 " EBUSY count=1\nfail x 300 op=read after=2 prob=0.125 seed=9", why));
        ASSERT_EQ(fault_set_check(&s, FAULT_OP_WRITE, SETSPEED1), -EBUSY);
        ASSERT_TRUE(fault_set_format(&s, buf, sizeof(buf)) > 0);
        ASSERT_STREQ(buf,
                     "fail " SETSPEED1 " EBUSY op=write after=0 count=1 prob=1 seed=1 seen=1 hits=1 spent\n"
                     "fail x 300 op=read after=2 count=inf prob=0.125 seed=9 seen=0 hits=0\n");
}

TEST(listing_fits_a_page) {
        char why[FAULT_WHY_MAX], rule[512], buf[4096];
        FaultSet s = {};
        int n;

        /* The longest line there can be, FAULT_RULES_MAX times. */
        (void) snprintf(rule, sizeof(rule), "fail %.63s ENOTRECOVERABLE op=write after=4294967295 count=4294967295 "
                        "prob=0.000123456789 seed=18446744073709551615",
                        "cpufreq/policy0/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        for (int i = 0; i < FAULT_RULES_MAX; i++)
                ASSERT_OK(apply(&s, rule, why));
        for (int i = 0; i < FAULT_RULES_MAX; i++) {
                s.rules[i].seen = UINT64_MAX;
                s.rules[i].hits = UINT64_MAX;
        }
        n = fault_set_format(&s, buf, sizeof(buf));
        ASSERT_TRUE(n > 0 && (size_t) n == strlen(buf));
        ASSERT_TRUE((size_t) n <= (size_t) FAULT_RULES_MAX * FAULT_LINE_MAX);
        ASSERT_TRUE(buf[n - 1] == '\n');
}

DEFINE_TEST_MAIN
