/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The "key=value …" part of a tracepoint's line as `perf script` prints it (the TP_printk formats of
 * include/trace/events/sched.h), looked up in one pass over the text.
 *
 * A key is a word ([A-Za-z0-9_]+) followed by '=', at the start of the text or right after a space. Its value
 * runs to the next " word=", " ==> " or " [ns]", a newline or the end: a comm may hold spaces, so a space alone
 * ends nothing. The first occurrence of a key counts, even one inside another field's value (the text is
 * ambiguous there: a comm "a prev_pid=1" reads as comm "a" and prev_pid=1, as it always has).
 */

#include <stddef.h>
#include <stdint.h>

typedef struct TraceField {
        const char *key;        /* in: the key, without '=' */
        const char *value;      /* out: into the text, not NUL-terminated; NULL when the key is absent */
        size_t value_len;
} TraceField;

/* Fills in the value of each of @fields' keys from @text. */
void trace_fields_find(const char *text, TraceField *fields, size_t n_fields);

/* Copies at most @size-1 bytes of the value, NUL-terminated. Returns 0, or -ENOENT (@buf untouched). */
int trace_field_copy(const TraceField *f, char *buf, size_t size);

/*
 * The value as a decimal number, as strtol()/strtoull() read its first 31 bytes, which must all be used.
 * trace_field_u64() refuses a leading '-'. Return 0, -ENOENT, or -EINVAL (@ret untouched on error).
 */
int trace_field_int32(const TraceField *f, int32_t *ret);
int trace_field_u64(const TraceField *f, uint64_t *ret);
