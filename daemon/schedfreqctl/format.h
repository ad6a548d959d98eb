/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* schedfreqctl's output formatting: times, CPU lists, and JSON (a string, a whole snapshot). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json-writer.h"
#include "snapshot.h"

/* Each writes into @buf and returns it. */
const char *format_ago(char *buf, size_t size, uint64_t then_usec);     /* "never", "just now", "2.5 s ago" */
const char *format_duration(char *buf, size_t size, uint64_t usec);     /* "12.0s", "3min 4s", "1h 2min", "2d 3h" */
const char *format_span(char *buf, size_t size, uint64_t usec);         /* "850 µs", "1.3 ms", "2.4 s", then as above */
const char *format_count(char *buf, size_t size, uint64_t n);           /* "98765", "123k", "4.56M", "7.89G" */
const char *format_cpus(char *buf, size_t size, const Prop *p);         /* an array property as "0-3,6" */

/* @text with each line longer than @width columns broken at spaces, continuations indented two past the line's. */
void print_wrapped(FILE *out, const char *text, size_t width);

/* The end of a verb's output: @r if it failed already, else stdout flushed: 0, or a negative errno said on stderr. */
int stdout_done(int r);

/* One D-Bus object as a JSON object: "path", then every property by its D-Bus name. */
void json_write_object(JsonWriter *w, const Object *o);
/* A whole snapshot, {"daemon":{...},"policies":[...],"cpus":[...]}, as one line on stdout: 0 or -EIO. */
int print_json(const Snapshot *s);
