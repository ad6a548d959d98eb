/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for alloc-util.c: greedy_realloc()'s growth, its minimum, and its refusals. */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "alloc-util.h"
#include "test.h"

DEFINE_TEST_MAIN;

TEST(grows_geometrically) {
        size_t allocated = 0;
        int *a = NULL, *b;

        /* The first growth takes the minimum. */
        a = greedy_realloc(a, &allocated, 1, sizeof(int), 8);
        ASSERT_TRUE(a != NULL);
        ASSERT_EQ(allocated, (size_t) 8);
        for (int i = 0; i < 8; i++)
                a[i] = i;
        /* Room already there: the same array, nothing changed. */
        b = greedy_realloc(a, &allocated, 8, sizeof(int), 8);
        ASSERT_TRUE(b == a);
        ASSERT_EQ(allocated, (size_t) 8);
        /* One more: twice as much, the contents kept. */
        a = greedy_realloc(a, &allocated, 9, sizeof(int), 8);
        ASSERT_TRUE(a != NULL);
        ASSERT_EQ(allocated, (size_t) 16);
        for (int i = 0; i < 8; i++)
                ASSERT_EQ(a[i], i);
        /* More than twice: what is needed. */
        a = greedy_realloc(a, &allocated, 100, sizeof(int), 8);
        ASSERT_TRUE(a != NULL);
        ASSERT_EQ(allocated, (size_t) 100);
        free(a);
}

/* ASan checks reallocarray()'s overflow itself, and reports it as an error (allocator_may_return_null=0). */
#if !defined(__SANITIZE_ADDRESS__)
TEST(overflow) {
        size_t allocated = 4;
        char *a = malloc(4), *b;

        ASSERT_TRUE(a != NULL);
        /* need × size does not fit a size_t: refused, the array and its size untouched. */
        errno = 0;
        b = greedy_realloc(a, &allocated, SIZE_MAX / 2, 4, 8);
        ASSERT_TRUE(b == NULL);
        ASSERT_EQ(errno, ENOMEM);
        ASSERT_EQ(allocated, (size_t) 4);
        /* Doubling would wrap: refused as well, not a small block. */
        allocated = SIZE_MAX / 2 + 1;
        b = greedy_realloc(a, &allocated, SIZE_MAX / 2 + 2, 2, 8);
        ASSERT_TRUE(b == NULL);
        ASSERT_EQ(errno, ENOMEM);
        ASSERT_TRUE(allocated == SIZE_MAX / 2 + 1);
        free(a);
}
#endif
