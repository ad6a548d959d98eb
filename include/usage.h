/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Usage errors, printed the same way by schedfreqd and schedfreqctl: what is wrong as a sentence of its own (no
 * "PROGRAM:" prefix, as every other message of both programs; docs/architecture.md, "Messages"), then the hint
 * "Try 'PROGRAM --help'.", on stderr. The callers exit with status 2.
 */

#include "macro.h"

/* @program: "schedfreqd" or "schedfreqctl", for the hint. */
_printf_(2, 3) void usage_error(const char *program, const char *format, ...);

/*
 * getopt_long()'s '?' or ':' (@c) as a usage error naming the option as typed; getopt's own message is off
 * (opterr = 0): it names argv[0] as typed ("build/schedfreqd: ...") and is not a sentence. @shortopts is the
 * string given to getopt_long(), which tells a long option given a value it does not take from an unknown
 * short option.
 */
void usage_option_error(const char *program, char **argv, int c, const char *shortopts);
