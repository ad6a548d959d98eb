/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for daemon/shared/cpulist.c: the kernel's CPU list format. */

#include <errno.h>
#include <string.h>

#include "cpulist.h"
#include "test.h"

/* Parses @s and formats the result back; "" on error. */
static const char *roundtrip(const char *s, char *buf, size_t size) {
        cpu_set_t set;

        if (cpulist_parse(s, &set) < 0 || cpulist_format(&set, buf, size) < 0)
                return "";
        return buf;
}

TEST(parse_simple) {
        char buf[256];

        ASSERT_STREQ(roundtrip("0", buf, sizeof(buf)), "0");
        ASSERT_STREQ(roundtrip("0-3", buf, sizeof(buf)), "0-3");
        ASSERT_STREQ(roundtrip("0-3,6", buf, sizeof(buf)), "0-3,6");
        ASSERT_STREQ(roundtrip("6,0-3", buf, sizeof(buf)), "0-3,6");
        ASSERT_STREQ(roundtrip("0,1,2,3", buf, sizeof(buf)), "0-3");
        ASSERT_STREQ(roundtrip("0-1", buf, sizeof(buf)), "0-1");
        ASSERT_STREQ(roundtrip("3-3", buf, sizeof(buf)), "3");
        ASSERT_STREQ(roundtrip("0-2,2-5", buf, sizeof(buf)), "0-5");
        ASSERT_STREQ(roundtrip("007", buf, sizeof(buf)), "7");
}

TEST(parse_whitespace_and_newline) {
        char buf[256];

        /* What sysfs files contain: a trailing newline. */
        ASSERT_STREQ(roundtrip("0-3,6\n", buf, sizeof(buf)), "0-3,6");
        ASSERT_STREQ(roundtrip(" 0-3 , 6 \n", buf, sizeof(buf)), "0-3,6");
        ASSERT_STREQ(roundtrip("\t1\t", buf, sizeof(buf)), "1");
}

TEST(parse_empty) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(5, &set);
        ASSERT_OK(cpulist_parse("", &set));
        ASSERT_EQ(CPU_COUNT(&set), 0);

        /* /sys/devices/system/cpu/offline on a machine with every CPU online is "\n". */
        CPU_SET(5, &set);
        ASSERT_OK(cpulist_parse("\n", &set));
        ASSERT_EQ(CPU_COUNT(&set), 0);

        ASSERT_OK(cpulist_parse("   ", &set));
        ASSERT_EQ(CPU_COUNT(&set), 0);
}

TEST(parse_hostile) {
        static const char *const invalid[] = {
                "0-", "-1", "-", "3-1", "1,,2", "1,", ",1", ",", " 0 - 3 ", "0 -3", "0- 3", "a", "1a", "0x1",
                "+1", "1 2", "0\n1", "0-3:1/2", "1.5", "1;2", "0--3",
        };
        cpu_set_t set;

        for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
                int r;

                CPU_ZERO(&set);
                CPU_SET(9, &set);
                r = cpulist_parse(invalid[i], &set);
                if (r != -EINVAL)
                        TEST_FAIL("cpulist_parse(\"%s\") = %d, expected -EINVAL", invalid[i], r);
                /* @ret is untouched on error. */
                ASSERT_EQ(CPU_COUNT(&set), 1);
                ASSERT_TRUE(CPU_ISSET(9, &set));
        }
}

TEST(parse_range_errors) {
        cpu_set_t set;

        ASSERT_ERROR(cpulist_parse("1024", &set), ERANGE);
        ASSERT_ERROR(cpulist_parse("0-1024", &set), ERANGE);
        ASSERT_ERROR(cpulist_parse("99999999999999999999999", &set), ERANGE);
        ASSERT_ERROR(cpulist_parse("4294967296", &set), ERANGE);
        ASSERT_OK(cpulist_parse("1023", &set));
        ASSERT_TRUE(CPU_ISSET(1023, &set));
        ASSERT_EQ(CPU_COUNT(&set), 1);
        ASSERT_ERROR(cpulist_parse(NULL, &set), EINVAL);
}

TEST(format_all_and_sparse) {
        char buf[4096];
        cpu_set_t set;

        CPU_ZERO(&set);
        for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++)
                CPU_SET(cpu, &set);
        ASSERT_OK(cpulist_format(&set, buf, sizeof(buf)));
        ASSERT_STREQ(buf, "0-1023");

        /* Every other CPU: the longest output (no ranges to collapse). */
        CPU_ZERO(&set);
        for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu += 2)
                CPU_SET(cpu, &set);
        ASSERT_OK(cpulist_format(&set, buf, sizeof(buf)));
        ASSERT_TRUE(strncmp(buf, "0,2,4,", 6) == 0);
        ASSERT_EQ(strlen(buf), 2004); /* 1493 digits + 511 commas */
        ASSERT_STREQ(buf + strlen(buf) - 10, ",1020,1022");

        {
                cpu_set_t back;

                ASSERT_OK(cpulist_parse(buf, &back));
                ASSERT_TRUE(CPU_EQUAL(&set, &back));
        }

        CPU_ZERO(&set);
        ASSERT_OK(cpulist_format(&set, buf, sizeof(buf)));
        ASSERT_STREQ(buf, "");
}

TEST(format_buffer_too_small) {
        char buf[8];
        cpu_set_t set;

        ASSERT_OK(cpulist_parse("0-3,6", &set));
        ASSERT_ERROR(cpulist_format(&set, buf, 5), ENOBUFS);  /* "0-3,6" needs 6 bytes */
        ASSERT_STREQ(buf, "");
        ASSERT_OK(cpulist_format(&set, buf, 6));
        ASSERT_STREQ(buf, "0-3,6");
        ASSERT_ERROR(cpulist_format(&set, buf, 0), ENOBUFS);

        CPU_ZERO(&set);
        ASSERT_OK(cpulist_format(&set, buf, 1));
        ASSERT_STREQ(buf, "");
}

TEST(first_last) {
        cpu_set_t set;

        CPU_ZERO(&set);
        ASSERT_ERROR(cpulist_first(&set), ENOENT);
        ASSERT_ERROR(cpulist_last(&set), ENOENT);

        ASSERT_OK(cpulist_parse("3-5,1023", &set));
        ASSERT_EQ(cpulist_first(&set), 3);
        ASSERT_EQ(cpulist_last(&set), 1023);

        ASSERT_OK(cpulist_parse("0", &set));
        ASSERT_EQ(cpulist_first(&set), 0);
        ASSERT_EQ(cpulist_last(&set), 0);
}

TEST(subtract) {
        cpu_set_t set, remove, want;

        /* CPUs of @remove not in @set (6, 1023) do not appear: not a XOR */
        ASSERT_OK(cpulist_parse("0-5,8", &set));
        ASSERT_OK(cpulist_parse("2-3,6,8,1023", &remove));
        ASSERT_OK(cpulist_parse("0-1,4-5", &want));
        cpulist_subtract(&set, &remove);
        ASSERT_TRUE(CPU_EQUAL(&set, &want));

        CPU_ZERO(&remove);
        cpulist_subtract(&set, &remove);
        ASSERT_TRUE(CPU_EQUAL(&set, &want));
}

DEFINE_TEST_MAIN
