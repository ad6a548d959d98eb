/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * json-writer.h: the one JSON emitter of schedfreqd and schedfreqctl (`schedfreqd topology --json`, every
 * `schedfreqctl ... --json`). A streaming writer: it puts the commas, colons and (when pretty) the line breaks,
 * so a caller only says what comes next. Strings are always valid JSON text (RFC 8259 §8.1: UTF-8): quotes,
 * backslashes and control characters escaped, and every byte that is not part of a well-formed UTF-8 sequence
 * (a task name is any bytes prctl(PR_SET_NAME) took) written as U+FFFD, one per byte, the replacement
 * character of Unicode's "U+FFFD substitution" practice; so a name is shown, not dropped, and a parser never
 * fails on it.
 *
 * Why a module of our own and not json-c or jansson: the output is written once, straight to a FILE, a few
 * hundred members at most; those libraries build a tree first (an allocation per value) and jansson refuses
 * invalid UTF-8 instead of substituting, which would lose the task. This is ~150 lines with its tests
 * (tests/unit/test-json-writer.c).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 16

typedef struct JsonWriter {
        FILE *f;
        unsigned indent;                        /* spaces per level; 0: compact, no white space at all */
        unsigned depth;                         /* open objects and arrays */
        bool has_member[JSON_DEPTH_MAX + 1];    /* something was written at this depth: a comma before the next */
        bool inline_[JSON_DEPTH_MAX + 1];       /* an array written on one line even when pretty */
        bool after_key;                         /* a key was written: its value follows without a separator */
        bool overflow;                          /* nested deeper than JSON_DEPTH_MAX: json_writer_end() fails */
} JsonWriter;

void json_writer_init(JsonWriter *w, FILE *f, unsigned indent);
/* After the top-level value: a newline, flushed. 0, -EIO (a write failed), -EINVAL (unbalanced or too deep). */
int json_writer_end(JsonWriter *w);

void json_object_begin(JsonWriter *w);
void json_object_end(JsonWriter *w);
void json_array_begin(JsonWriter *w);
void json_array_begin_inline(JsonWriter *w);   /* [1, 2, 3] on one line when pretty */
void json_array_end(JsonWriter *w);

/* An object member's name; its value is the next call. */
void json_key(JsonWriter *w, const char *key);

void json_string(JsonWriter *w, const char *s);             /* NULL: "" */
void json_string_n(JsonWriter *w, const char *s, size_t n); /* the first @n bytes of @s */
void json_u64(JsonWriter *w, uint64_t v);
void json_i64(JsonWriter *w, int64_t v);
void json_bool(JsonWriter *w, bool v);
void json_null(JsonWriter *w);

/* key + value in one call. */
void json_member_string(JsonWriter *w, const char *key, const char *s);
void json_member_u64(JsonWriter *w, const char *key, uint64_t v);
void json_member_i64(JsonWriter *w, const char *key, int64_t v);
void json_member_bool(JsonWriter *w, const char *key, bool v);
