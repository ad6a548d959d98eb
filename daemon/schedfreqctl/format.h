/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* schedfreqctl's output formatting: times, CPU lists, and JSON (a string, a whole snapshot). */

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* Each writes into @buf and returns it. */
const char *format_ago(char *buf, size_t size, uint64_t then_usec);     /* "never", "just now", "2.5 s ago" */
const char *format_duration(char *buf, size_t size, uint64_t usec);     /* "12.0s", "3min 4s", "1h 2min", "2d 3h" */
const char *format_cpus(char *buf, size_t size, const Prop *p);         /* an array property as "0-3,6" */

/* To stdout. */
void json_string(const char *s);
void print_json(const Snapshot *s);
