/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for daemon/shared/json-writer.c: separators, pretty and compact layout, and strings that are always valid
 * JSON whatever bytes they were given. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json-writer.h"
#include "macro.h"
#include "test.h"
#include "utf8.h"

/* A writer on a memory stream; json_text() ends it and returns what it wrote (the caller frees). */
typedef struct Mem {
        char *text;
        size_t size;
        FILE *f;
        JsonWriter w;
} Mem;

static void mem_open(Mem *m, unsigned indent) {
        *m = (Mem) {};
        m->f = open_memstream(&m->text, &m->size);
        json_writer_init(&m->w, m->f, indent);
}

static char *mem_close(Mem *m, int *ret) {
        *ret = json_writer_end(&m->w);
        fclose(m->f);
        return m->text;
}

/* "s" as a JSON string, compact. */
static char *string_json(const char *s) {
        Mem m;
        int r;

        mem_open(&m, 0);
        json_string(&m.w, s);
        return mem_close(&m, &r);
}

TEST(compact_separators) {
        _cleanup_free_ char *text = NULL;
        Mem m;
        int r;

        mem_open(&m, 0);
        json_object_begin(&m.w);
        json_member_u64(&m.w, "a", 1);
        json_key(&m.w, "b");
        json_array_begin(&m.w);
        json_i64(&m.w, -2);
        json_bool(&m.w, true);
        json_null(&m.w);
        json_object_begin(&m.w);
        json_object_end(&m.w);
        json_array_end(&m.w);
        json_member_string(&m.w, "c", NULL);
        json_object_end(&m.w);
        text = mem_close(&m, &r);
        ASSERT_OK(r);
        ASSERT_STREQ(text, "{\"a\":1,\"b\":[-2,true,null,{}],\"c\":\"\"}\n");
}

/* The layout of `schedfreqd topology --json`: two spaces a level, arrays of numbers on one line. */
TEST(pretty_with_inline_arrays) {
        _cleanup_free_ char *text = NULL;
        Mem m;
        int r;

        mem_open(&m, 2);
        json_object_begin(&m.w);
        json_key(&m.w, "system");
        json_object_begin(&m.w);
        json_member_string(&m.w, "online", "0-1");
        json_object_end(&m.w);
        json_key(&m.w, "policy0");
        json_object_begin(&m.w);
        json_key(&m.w, "khz");
        json_array_begin_inline(&m.w);
        json_u64(&m.w, 800000);
        json_u64(&m.w, 1200000);
        json_array_end(&m.w);
        json_key(&m.w, "empty");
        json_array_begin(&m.w);
        json_array_end(&m.w);
        json_object_end(&m.w);
        json_object_end(&m.w);
        text = mem_close(&m, &r);
        ASSERT_OK(r);
        ASSERT_STREQ(text, "{\n"
                           "  \"system\": {\n"
                           "    \"online\": \"0-1\"\n"
                           "  },\n"
                           "  \"policy0\": {\n"
                           "    \"khz\": [800000, 1200000],\n"
                           "    \"empty\": []\n"
                           "  }\n"
                           "}\n");
}

TEST(escapes) {
        _cleanup_free_ char *a = string_json("say \"hi\"\\\n\t\x01\x1f\x7f");

        ASSERT_STREQ(a, "\"say \\\"hi\\\"\\\\\\n\\t\\u0001\\u001f\x7f\"\n");
}

/* Well-formed UTF-8 passes as it is; anything else becomes U+FFFD, one per byte, and the rest is kept. */
TEST(utf8_kept_and_replaced) {
        _cleanup_free_ char *ok = string_json("µs → 𝄞 ü"), *bad = string_json("a\xff" "b\xc3"),
                            *overlong = string_json("\xc0\xaf" "x"), *surrogate = string_json("\xed\xa0\x80"),
                            *too_big = string_json("\xf4\x90\x80\x80"), *cut = string_json("\xe2\x82" "z"),
                            *latin1 = string_json("caf\xe9");

        ASSERT_STREQ(ok, "\"µs → 𝄞 ü\"\n");
        ASSERT_STREQ(bad, "\"a\\ufffdb\\ufffd\"\n");
        ASSERT_STREQ(overlong, "\"\\ufffd\\ufffdx\"\n");
        ASSERT_STREQ(surrogate, "\"\\ufffd\\ufffd\\ufffd\"\n");
        ASSERT_STREQ(too_big, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"\n");
        ASSERT_STREQ(cut, "\"\\ufffd\\ufffdz\"\n");
        ASSERT_STREQ(latin1, "\"caf\\ufffd\"\n");
}

TEST(utf8_sequence_length_bounds) {
        ASSERT_EQ(utf8_sequence_length((const unsigned char *) "\xc2\x80", 2), 2);
        ASSERT_EQ(utf8_sequence_length((const unsigned char *) "\xc2\x80", 1), 0);
        ASSERT_EQ(utf8_sequence_length((const unsigned char *) "\xe0\x9f\x80", 3), 0); /* overlong */
        ASSERT_EQ(utf8_sequence_length((const unsigned char *) "\xef\xbf\xbf", 3), 3);
        ASSERT_EQ(utf8_sequence_length((const unsigned char *) "\xf0\x8f\xbf\xbf", 4), 0); /* overlong */
        ASSERT_EQ(utf8_sequence_length((const unsigned char *) "\xf4\x8f\xbf\xbf", 4), 4); /* U+10FFFF */
        ASSERT_EQ(utf8_sequence_length((const unsigned char *) "\x80", 1), 0);
}

TEST(key_bytes_escaped_too) {
        _cleanup_free_ char *text = NULL;
        Mem m;
        int r;

        mem_open(&m, 0);
        json_object_begin(&m.w);
        json_member_u64(&m.w, "k\xfe\"", 1);
        json_object_end(&m.w);
        text = mem_close(&m, &r);
        ASSERT_OK(r);
        ASSERT_STREQ(text, "{\"k\\ufffd\\\"\":1}\n");
}

TEST(unbalanced_is_an_error) {
        _cleanup_free_ char *open_text = NULL, *key_text = NULL, *deep_text = NULL;
        Mem m;
        int r;

        mem_open(&m, 0);
        json_object_begin(&m.w);
        open_text = mem_close(&m, &r);
        ASSERT_EQ(r, -EINVAL);

        mem_open(&m, 0);
        json_object_begin(&m.w);
        json_key(&m.w, "dangling");
        json_object_end(&m.w);
        key_text = mem_close(&m, &r);
        ASSERT_EQ(r, -EINVAL);

        mem_open(&m, 0);
        for (int i = 0; i <= JSON_DEPTH_MAX; i++)
                json_array_begin(&m.w);
        for (int i = 0; i <= JSON_DEPTH_MAX; i++)
                json_array_end(&m.w);
        deep_text = mem_close(&m, &r);
        ASSERT_EQ(r, -EINVAL);
}

TEST(utf8_or_replaced_copies_only_when_needed) {
        _cleanup_free_ char *buf = NULL;
        const char *good = "pid µs";

        ASSERT_TRUE(utf8_or_replaced(good, &buf) == good);
        ASSERT_TRUE(buf == NULL);
        ASSERT_STREQ(utf8_or_replaced("odd\xffname\xc3", &buf), "odd\xef\xbf\xbdname\xef\xbf\xbd");
        ASSERT_TRUE(utf8_is_valid(buf));
        ASSERT_TRUE(!utf8_is_valid("\xc0\x80"));
}

DEFINE_TEST_MAIN
