/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for the one-pass key=value scan of `perf script` lines (trace-fields.c). */

#include <errno.h>
#include <string.h>

#include "macro.h"
#include "test.h"
#include "trace-fields.h"

static const char *value(const TraceField *f, char *buf, size_t size) {
        return trace_field_copy(f, buf, size) < 0 ? NULL : buf;
}

TEST(find) {
        TraceField f[] = { { .key = "pid" }, { .key = "comm" }, { .key = "delay" }, { .key = "nope" } };
        char buf[64];

        trace_fields_find(" comm=a pid=x pid=1 b pid=2 delay=9 [ns]\n", f, ELEMENTSOF(f));
        ASSERT_STREQ(value(&f[0], buf, sizeof(buf)), "x");  /* the first occurrence */
        ASSERT_STREQ(value(&f[1], buf, sizeof(buf)), "a");
        ASSERT_STREQ(value(&f[2], buf, sizeof(buf)), "9"); /* " [ns]" ends it */
        ASSERT_TRUE(!f[3].value);
        ASSERT_ERROR(trace_field_copy(&f[3], buf, sizeof(buf)), ENOENT);

        /* A key at the start; "x-pid=" and "=pid=" start no key; " ==> " and a newline end values. */
        trace_fields_find("comm=q r x-pid=3 =pid=4 ==> pid=5 6\ndelay=7 delay=8", f, ELEMENTSOF(f));
        ASSERT_STREQ(value(&f[1], buf, sizeof(buf)), "q r x-pid=3 =pid=4");
        ASSERT_STREQ(value(&f[0], buf, sizeof(buf)), "5 6");
        ASSERT_STREQ(value(&f[2], buf, sizeof(buf)), "8");

        trace_fields_find("", f, ELEMENTSOF(f));
        ASSERT_TRUE(!f[0].value && !f[1].value);
        trace_fields_find(" pid=", f, 1);
        ASSERT_STREQ(value(&f[0], buf, sizeof(buf)), "");
        ASSERT_STREQ(value(&f[0], buf, 1), "");
}

TEST(numbers) {
        TraceField f[] = { { .key = "a" }, { .key = "b" }, { .key = "c" }, { .key = "d" }, { .key = "e" } };
        uint64_t u = 0;
        int32_t i = 0;

        trace_fields_find(" a=-2147483648 b=2147483648 c= 12 d=18446744073709551615 e=-1", f, ELEMENTSOF(f));
        ASSERT_OK(trace_field_int32(&f[0], &i));
        ASSERT_EQ(i, INT32_MIN);
        ASSERT_ERROR(trace_field_int32(&f[1], &i), EINVAL);
        ASSERT_OK(trace_field_int32(&f[2], &i)); /* strtol() skips leading blanks */
        ASSERT_EQ(i, 12);
        ASSERT_OK(trace_field_u64(&f[3], &u));
        ASSERT_U64_EQ(u, UINT64_MAX);
        ASSERT_ERROR(trace_field_u64(&f[4], &u), EINVAL);
        ASSERT_OK(trace_field_int32(&f[4], &i));
        ASSERT_EQ(i, -1);

        trace_fields_find(" a= b=1x c=- d=99999999999999999999", f, ELEMENTSOF(f));
        ASSERT_ERROR(trace_field_int32(&f[0], &i), EINVAL);
        ASSERT_ERROR(trace_field_int32(&f[1], &i), EINVAL);
        ASSERT_ERROR(trace_field_int32(&f[2], &i), EINVAL);
        ASSERT_ERROR(trace_field_u64(&f[3], &u), EINVAL);
        ASSERT_ERROR(trace_field_int32(&f[4], &i), ENOENT);
}

DEFINE_TEST_MAIN
