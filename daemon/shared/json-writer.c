/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json-writer.c: a streaming JSON writer that never writes invalid JSON (json-writer.h says why this and not a
 * library). The separators follow from the state: at each depth, whether something was written there already.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "json-writer.h"
#include "utf8.h"

void json_writer_init(JsonWriter *w, FILE *f, unsigned indent) {
        *w = (JsonWriter) { .f = f, .indent = indent };
}

static bool pretty(const JsonWriter *w) {
        return w->indent > 0 && !w->inline_[w->depth];
}

static void newline_indent(JsonWriter *w, unsigned depth) {
        fprintf(w->f, "\n%*s", (int) (depth * w->indent), "");
}

/* What comes before a value or a key: nothing after a key, else a comma after an earlier member, and when pretty a
 * new line at this depth's indent. */
static void before_item(JsonWriter *w) {
        if (w->after_key) {
                w->after_key = false;
                return;
        }
        if (w->has_member[w->depth])
                fputs(w->indent > 0 && w->inline_[w->depth] ? ", " : ",", w->f);
        if (w->depth > 0 && pretty(w))
                newline_indent(w, w->depth);
        w->has_member[w->depth] = true;
}

static void container_open(JsonWriter *w, char c, bool inline_) {
        before_item(w);
        fputc(c, w->f);
        if (w->depth >= JSON_DEPTH_MAX) {
                w->overflow = true;
                return;
        }
        w->depth++;
        w->has_member[w->depth] = false;
        w->inline_[w->depth] = inline_ || (w->depth > 1 && w->inline_[w->depth - 1]);
}

static void container_close(JsonWriter *w, char c) {
        if (w->depth == 0) {
                w->overflow = true;
                return;
        }
        if (w->has_member[w->depth] && pretty(w))
                newline_indent(w, w->depth - 1);
        w->depth--;
        fputc(c, w->f);
}

void json_object_begin(JsonWriter *w) {
        container_open(w, '{', false);
}

void json_object_end(JsonWriter *w) {
        container_close(w, '}');
}

void json_array_begin(JsonWriter *w) {
        container_open(w, '[', false);
}

void json_array_begin_inline(JsonWriter *w) {
        container_open(w, '[', true);
}

void json_array_end(JsonWriter *w) {
        container_close(w, ']');
}

static void write_escaped(FILE *f, const unsigned char *s, size_t n) {
        fputc('"', f);
        for (size_t i = 0; i < n;) {
                size_t len = utf8_sequence_length(s + i, n - i);

                if (len == 0) {
                        fputs("\\ufffd", f);
                        i++;
                } else if (s[i] == '"' || s[i] == '\\')
                        fprintf(f, "\\%c", s[i++]);
                else if (s[i] == '\n')
                        fputs("\\n", f), i++;
                else if (s[i] == '\t')
                        fputs("\\t", f), i++;
                else if (s[i] < 0x20)
                        fprintf(f, "\\u%04x", s[i++]);
                else {
                        fwrite(s + i, 1, len, f);
                        i += len;
                }
        }
        fputc('"', f);
}

void json_key(JsonWriter *w, const char *key) {
        before_item(w);
        write_escaped(w->f, (const unsigned char *) key, strlen(key));
        fputs(w->indent > 0 ? ": " : ":", w->f);
        w->after_key = true;
}

void json_string_n(JsonWriter *w, const char *s, size_t n) {
        before_item(w);
        write_escaped(w->f, (const unsigned char *) (s ? s : ""), s ? n : 0);
}

void json_string(JsonWriter *w, const char *s) {
        json_string_n(w, s, s ? strlen(s) : 0);
}

void json_u64(JsonWriter *w, uint64_t v) {
        before_item(w);
        fprintf(w->f, "%" PRIu64, v);
}

void json_i64(JsonWriter *w, int64_t v) {
        before_item(w);
        fprintf(w->f, "%" PRId64, v);
}

void json_bool(JsonWriter *w, bool v) {
        before_item(w);
        fputs(v ? "true" : "false", w->f);
}

void json_null(JsonWriter *w) {
        before_item(w);
        fputs("null", w->f);
}

void json_member_string(JsonWriter *w, const char *key, const char *s) {
        json_key(w, key);
        json_string(w, s);
}

void json_member_u64(JsonWriter *w, const char *key, uint64_t v) {
        json_key(w, key);
        json_u64(w, v);
}

void json_member_i64(JsonWriter *w, const char *key, int64_t v) {
        json_key(w, key);
        json_i64(w, v);
}

void json_member_bool(JsonWriter *w, const char *key, bool v) {
        json_key(w, key);
        json_bool(w, v);
}

int json_writer_end(JsonWriter *w) {
        if (w->overflow || w->depth != 0 || w->after_key)
                return -EINVAL;
        fputc('\n', w->f);
        if (fflush(w->f) != 0 || ferror(w->f))
                return -EIO;
        return 0;
}
