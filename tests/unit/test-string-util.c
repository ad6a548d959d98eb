/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for string-util.c: strip() and the enum ↔ name tables (string-table.h). */

#include <errno.h>
#include <string.h>

#include "string-table.h"
#include "string-util.h"
#include "test.h"

DEFINE_TEST_MAIN;

typedef enum Colour { COLOUR_RED, COLOUR_GAP, COLOUR_BLUE, _COLOUR_MAX, _COLOUR_INVALID = -EINVAL } Colour;

static const char *const colour_table[_COLOUR_MAX] = {
        [COLOUR_RED] = "red",
        [COLOUR_BLUE] = "blue", /* COLOUR_GAP has no name */
};

static const char *colour_to_string(Colour i);
static Colour colour_from_string(const char *s);
DEFINE_STRING_TABLE_LOOKUP(colour, Colour);

TEST(strip) {
        char a[] = " \t key = value \r\n", b[] = "", c[] = " \v\f ";

        ASSERT_STREQ(strip(a), "key = value");
        ASSERT_STREQ(strip(b), "");
        ASSERT_STREQ(strip(c), "");
}

TEST(table) {
        ASSERT_STREQ(colour_to_string(COLOUR_RED), "red");
        ASSERT_STREQ(colour_to_string(COLOUR_BLUE), "blue");
        ASSERT_TRUE(colour_to_string(COLOUR_GAP) == NULL);
        ASSERT_TRUE(colour_to_string(_COLOUR_MAX) == NULL);
        ASSERT_TRUE(colour_to_string(_COLOUR_INVALID) == NULL);
        ASSERT_EQ(colour_from_string("blue"), COLOUR_BLUE);
        ASSERT_EQ(colour_from_string("green"), _COLOUR_INVALID);
        ASSERT_EQ(colour_from_string(""), _COLOUR_INVALID);
        ASSERT_EQ(colour_from_string(NULL), _COLOUR_INVALID);
}
