/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The configuration's errors: one "FILE:LINE: reason" per entry, in line order within a file. Collected while
 * every file is read (a load reports all its errors, not the first), joined into the error text at the end.
 * Out of memory is remembered (oom) rather than returned from each add.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "macro.h"

typedef struct ConfigError {
        unsigned line;
        size_t seq;               /* keeps the order of errors on the same line */
        char *message;
} ConfigError;

typedef struct ConfigErrors {
        ConfigError *items;
        size_t n, allocated;
        bool oom;
        uint32_t bad_rules;       /* rules with a bad key or value: not judged as a whole too (bit = index) */
} ConfigErrors;

_Static_assert(RULES_MAX <= 32, "ConfigErrors.bad_rules has a bit per rule");

void config_errors_done(ConfigErrors *l);
/* Adds a message (already "FILE:LINE: reason") for @line. */
_printf_(3, 4) void config_error_add(ConfigErrors *l, unsigned line, const char *format, ...);
/* The syntax pass finds its errors before the key pass: puts one file's errors (from @start) back in line order. */
void config_errors_sort_from(ConfigErrors *l, size_t start);
/* All messages, one per line, without a final newline; NULL when out of memory. */
char *config_errors_join(const ConfigErrors *l);
