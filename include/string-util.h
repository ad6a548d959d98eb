/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Small string helpers shared by the line parsers (topology INI, state file). */

/* Cuts the whitespace (isspace()) at both ends of @s in place; returns the first non-space character. */
char *strip(char *s);

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The edit distance between @a and @b, case ignored: insertions, deletions, substitutions and swaps of two
 * neighbours ("optimal string alignment", Damerau-Levenshtein's restricted form), each costing 1. Words longer
 * than STRING_DISTANCE_MAX bytes compare as SIZE_MAX (too far): it is for "did you mean" suggestions.
 */
#define STRING_DISTANCE_MAX 64
size_t string_distance(const char *a, const char *b);
/*
 * Whether @typed is close enough to @known to suggest it ("Did you mean ...?"): at most 2 edits, and fewer
 * than half of @known's length, so that "ex" suggests exe but "abc" suggests nothing.
 */
bool string_is_typo_of(const char *typed, const char *known);

/* Parses a decimal u32 with an optional trailing newline (a sysfs value, an environment number). -EINVAL or
 * -ERANGE; *ret untouched then. */
int parse_u32_line(const char *s, uint32_t *ret);

/* Parses a /proc directory name as a PID or TID: decimal digits only, 1..INT32_MAX. false for anything else
 * (self, sys, net, ...); *ret untouched then. */
bool parse_pid_name(const char *s, int32_t *ret);
