/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * utf8.h: text that leaves the daemon must be UTF-8 (a D-Bus string must be, or sd-bus refuses the whole message
 * with -EINVAL; JSON must be, RFC 8259 §8.1), while what it shows comes from places that promise nothing: a task's
 * comm is any bytes (prctl(PR_SET_NAME), the name of an executed file), so are a configuration's globs and paths.
 * Such text is shown with each byte that begins no well-formed sequence as U+FFFD (Unicode's "substitution of
 * U+FFFD" practice, one per byte): shown, not dropped, and never the reason a reply fails.
 */

#include <stdbool.h>
#include <stddef.h>

/* The length of the well-formed UTF-8 sequence at @s (at most @n bytes), 0 when the byte at @s begins none
 * (RFC 3629 §4: no overlong forms, no surrogates, nothing above U+10FFFF). */
size_t utf8_sequence_length(const unsigned char *s, size_t n);

bool utf8_is_valid(const char *s);

/*
 * @s as valid UTF-8: @s itself when it is, else a copy with U+FFFD for each bad byte, kept in *@buf for the
 * caller to free. NULL only when that copy could not be allocated.
 */
const char *utf8_or_replaced(const char *s, char **buf);
