/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A small test harness in the spirit of libperf's tests.h and systemd's TEST()/ASSERT_*: each TEST() is
 * registered by a constructor; main() (from DEFINE_TEST_MAIN) runs them in order and prints one TAP-like
 * line per test ("ok - NAME" / "not ok - NAME"), which tests/run-tests counts. Exit status 1 on any failure.
 * An assertion that fails prints file:line and the values, and returns from the test.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TestCase {
        const char *name;
        void (*func)(void);
} TestCase;

#define TEST_MAX 512
extern TestCase test_cases[TEST_MAX];
extern unsigned test_n_cases;
extern bool test_failed;

#define TEST(name)                                                              \
        static void test_##name(void);                                          \
        __attribute__((constructor)) static void test_register_##name(void) {   \
                if (test_n_cases < TEST_MAX)                                     \
                        test_cases[test_n_cases++] = (TestCase){ #name, test_##name }; \
        }                                                                       \
        static void test_##name(void)

#define TEST_FAIL(...)                                                          \
        do {                                                                    \
                fprintf(stderr, "# %s:%d: ", __FILE__, __LINE__);               \
                fprintf(stderr, __VA_ARGS__);                                   \
                fputc('\n', stderr);                                            \
                test_failed = true;                                             \
                return;                                                         \
        } while (0)

#define ASSERT_TRUE(expr)                                                       \
        do {                                                                    \
                if (!(expr))                                                    \
                        TEST_FAIL("assertion failed: %s", #expr);               \
        } while (0)

#define ASSERT_EQ(a, b)                                                         \
        do {                                                                    \
                int64_t _a = (int64_t) (a), _b = (int64_t) (b);                 \
                if (_a != _b)                                                   \
                        TEST_FAIL("%s == %s: %" PRId64 " != %" PRId64, #a, #b, _a, _b); \
        } while (0)

#define ASSERT_U64_EQ(a, b)                                                     \
        do {                                                                    \
                uint64_t _a = (uint64_t) (a), _b = (uint64_t) (b);              \
                if (_a != _b)                                                   \
                        TEST_FAIL("%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, _a, _b); \
        } while (0)

#define ASSERT_STREQ(a, b)                                                      \
        do {                                                                    \
                const char *_a = (a), *_b = (b);                                \
                if (!_a || !_b || strcmp(_a, _b) != 0)                          \
                        TEST_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
        } while (0)

#define ASSERT_OK(expr)                                                         \
        do {                                                                    \
                int64_t _r = (int64_t) (expr);                                  \
                if (_r < 0)                                                     \
                        TEST_FAIL("%s failed: %" PRId64 " (%s)", #expr, _r, strerror((int) -_r)); \
        } while (0)

#define ASSERT_ERROR(expr, err)                                                 \
        do {                                                                    \
                int64_t _r = (int64_t) (expr);                                  \
                if (_r != -(int64_t) (err))                                     \
                        TEST_FAIL("%s: expected -%s (%d), got %" PRId64, #expr, #err, (err), _r); \
        } while (0)

#define DEFINE_TEST_MAIN                                                        \
        TestCase test_cases[TEST_MAX];                                          \
        unsigned test_n_cases;                                                  \
        bool test_failed;                                                       \
        int main(int argc, char **argv) {                                       \
                unsigned failed = 0;                                            \
                for (unsigned i = 0; i < test_n_cases; i++) {                   \
                        if (argc > 1 && strcmp(argv[1], test_cases[i].name) != 0) \
                                continue;                                       \
                        test_failed = false;                                    \
                        test_cases[i].func();                                   \
                        printf("%s - %s\n", test_failed ? "not ok" : "ok", test_cases[i].name); \
                        fflush(stdout);                                         \
                        failed += test_failed;                                  \
                }                                                               \
                return failed ? 1 : 0;                                          \
        }
