/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The configuration's errors: one "FILE:LINE: reason" per entry, listed in FILE:LINE order: the files in load
 * order (the main file, then its drop-ins by name), each in line order. Collected while every file is read (a
 * load reports all its errors, not the first), put in that order and joined into the error text at the end.
 * Out of memory is remembered (oom) rather than returned from each add.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "macro.h"

typedef struct ConfigError {
        size_t file;              /* the file's place in load order (ConfigErrors.files) */
        unsigned line;
        size_t seq;               /* keeps the order of errors on the same line */
        char *message;
} ConfigError;

typedef struct ConfigErrors {
        ConfigError *items;
        size_t n, allocated;
        char **files;             /* the files errors were added for, in the order they were named: load order */
        size_t n_files, file;     /* file: the current one, whose errors config_error_add() adds */
        bool oom;
        uint32_t bad_rules;       /* rules with a bad key or value: not judged as a whole too (bit = index) */
} ConfigErrors;

_Static_assert(RULES_MAX <= 32, "ConfigErrors.bad_rules has a bit per rule");

void config_errors_done(ConfigErrors *l);
/*
 * The file the next errors are for (a copy is kept). Name them in load order: each file as it is read, and a
 * file read before again for what is judged once all are read (a rule's problems, at its header).
 */
void config_errors_set_file(ConfigErrors *l, const char *file);
/* Adds a message (already "FILE:LINE: reason") for @line of the current file. */
_printf_(3, 4) void config_error_add(ConfigErrors *l, unsigned line, const char *format, ...);
/* Puts the errors in FILE:LINE order (the syntax pass finds its errors before the key pass, rules are judged last). */
void config_errors_sort(ConfigErrors *l);
/* All messages, one per line, without a final newline; NULL when out of memory. */
char *config_errors_join(const ConfigErrors *l);
