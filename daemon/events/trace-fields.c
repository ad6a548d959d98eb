/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-fields.c: the key=value fields of a `perf script` line (daemon/events/trace-fields.h), found in one scan
 * instead of one search of the whole line per key: replay's parsing is most of its time (issue #12).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "trace-fields.h"

/* Bytes a strtol() of the value sees: what fits the buffer it was always copied into. */
#define NUMBER_MAX_LEN 31

/*
 * isalnum() in the "C" locale the daemon runs in (it never calls setlocale()), or '_': the characters of a
 * TP_printk key. Spelled out, as this runs for every byte of a key and the ctype table costs a call.
 */
static bool is_word_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The length of the key at @p: a word followed by '='; 0 when @p holds none. */
static size_t key_length(const char *p) {
        const char *q = p;

        while (is_word_char(*q))
                q++;
        return *q == '=' ? (size_t) (q - p) : 0;
}

/* Whether the text after a space starts the next field: " word=", or the " ==> " and " [ns]" of the formats. */
static bool starts_field(const char *q, size_t *ret_key_len) {
        *ret_key_len = key_length(q);
        if (*ret_key_len > 0)
                return true;
        return (q[0] == '=' && q[1] == '=' && q[2] == '>' && q[3] == ' ') ||
               (q[0] == '[' && q[1] == 'n' && q[2] == 's' && q[3] == ']');
}

/* Whether @want (NUL-terminated) is the @len bytes at @key. */
static bool key_equal(const char *want, const char *key, size_t len) {
        for (size_t i = 0; i < len; i++)
                if (want[i] != key[i])
                        return false;
        return want[len] == '\0';
}

/*
 * A key of @len bytes at @p: opens its value if it is wanted and not found yet. Returns that field, or NULL.
 * The search starts at *@hint, past the last key found: the keys usually come in the order asked for.
 */
static TraceField *key_open(TraceField *fields, size_t n_fields, const char *p, size_t len, size_t *hint,
                            size_t *missing) {
        for (size_t k = 0, i = *hint; k < n_fields; k++, i = i + 1 < n_fields ? i + 1 : 0) {
                if (fields[i].value || !key_equal(fields[i].key, p, len))
                        continue;
                fields[i].value = p + len + 1;
                *hint = i + 1 < n_fields ? i + 1 : 0;
                (*missing)--;
                return &fields[i];
        }
        return NULL;
}

/* The next space, newline or the end. */
static const char *next_break(const char *p) {
        while (*p != ' ' && *p != '\n' && *p != '\0')
                p++;
        return p;
}

void trace_fields_find(const char *text, TraceField *fields, size_t n_fields) {
        size_t missing = n_fields, hint = 0, len;
        TraceField *open = NULL;   /* the field whose value is being read */
        const char *p;

        for (size_t i = 0; i < n_fields; i++) {
                fields[i].value = NULL;
                fields[i].value_len = 0;
        }
        if (n_fields == 0)
                return;

        len = key_length(text);
        if (len > 0)
                open = key_open(fields, n_fields, text, len, &hint, &missing);

        /* Every space is looked at, so no key is missed inside a value that another one opened. */
        for (p = next_break(text); *p != '\0' && (missing > 0 || open); p = next_break(p + 1)) {
                len = 0;
                if (*p == '\n' || starts_field(p + 1, &len)) {
                        /* A newline ends a value, but keys after it still count (as a strstr() found them). */
                        if (open)
                                open->value_len = (size_t) (p - open->value);
                        open = NULL;
                }
                if (len > 0)
                        open = key_open(fields, n_fields, p + 1, len, &hint, &missing);
        }
        if (open)
                open->value_len = (size_t) (p - open->value);
}

int trace_field_copy(const TraceField *f, char *buf, size_t size) {
        size_t n;

        if (!f->value)
                return -ENOENT;
        n = MIN(f->value_len, size - 1);
        memcpy(buf, f->value, n);
        buf[n] = '\0';
        return 0;
}

/*
 * The common case without strtol(): an optional '-' (when @sign) and 1 to @max_digits digits, nothing else.
 * Within those bounds the result is strtol()'s exactly; anything else is left to it.
 */
static bool parse_plain(const TraceField *f, bool sign, size_t max_digits, bool *ret_negative, uint64_t *ret) {
        const char *p = f->value, *end = f->value + f->value_len;
        uint64_t v = 0;

        *ret_negative = sign && p < end && *p == '-';
        p += *ret_negative;
        if (p == end || (size_t) (end - p) > max_digits)
                return false;
        for (; p < end; p++) {
                if (*p < '0' || *p > '9')
                        return false;
                v = v * 10 + (uint64_t) (*p - '0');
        }
        *ret = v;
        return true;
}

int trace_field_int32(const TraceField *f, int32_t *ret) {
        char buf[NUMBER_MAX_LEN + 1], *end;
        bool negative;
        uint64_t u;
        long v;

        if (!f->value)
                return -ENOENT;
        if (parse_plain(f, true, 10, &negative, &u)) {
                if (u > (negative ? (uint64_t) INT32_MAX + 1 : (uint64_t) INT32_MAX))
                        return -EINVAL;
                *ret = negative ? (int32_t) -(int64_t) u : (int32_t) u;
                return 0;
        }

        (void) trace_field_copy(f, buf, sizeof(buf));
        errno = 0;
        v = strtol(buf, &end, 10);
        if (errno != 0 || end == buf || *end != '\0' || v < INT32_MIN || v > INT32_MAX)
                return -EINVAL;
        *ret = (int32_t) v;
        return 0;
}

int trace_field_u64(const TraceField *f, uint64_t *ret) {
        char buf[NUMBER_MAX_LEN + 1], *end;
        unsigned long long v;
        bool negative;
        uint64_t u;

        if (!f->value)
                return -ENOENT;
        if (parse_plain(f, false, 19, &negative, &u)) {
                *ret = u;
                return 0;
        }

        (void) trace_field_copy(f, buf, sizeof(buf));
        errno = 0;
        v = strtoull(buf, &end, 10);
        if (errno != 0 || end == buf || *end != '\0' || buf[0] == '-')
                return -EINVAL;
        *ret = v;
        return 0;
}
