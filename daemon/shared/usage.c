/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usage.c: usage errors, one shape for both programs (include/usage.h). */

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "usage.h"

void usage_error(const char *program, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        (void) vfprintf(stderr, format, ap);
        va_end(ap);
        (void) fprintf(stderr, "\nTry '%s --help'.\n", program);
}

/*
 * glibc steps optind past a long option it rejects (so argv[optind - 1] is it, "=VALUE" included) and sets
 * optopt to 0 for an unknown one, to its val for one given a value it does not take; for a short option optopt
 * is the letter, and optind may still point at its cluster ("-qx"), so argv[optind - 1] is not it. A known
 * letter or a val above the letters can only be a long option given a value. An argument is missing only at
 * the end of argv.
 */
void usage_option_error(const char *program, char **argv, int c, const char *shortopts) {
        const char *word = argv[optind - 1];
        bool known_val = optopt >= 0x100 || (optopt > 0 && optopt != ':' && strchr(shortopts, optopt));

        if (c == ':' && strncmp(word, "--", 2) == 0)
                usage_error(program, "Option '%s' needs a value.", word);
        else if (c == ':')
                usage_error(program, "Option '-%c' needs a value.", optopt);
        else if (optopt == 0)
                usage_error(program, "Unknown option '%s'.", word);
        else if (known_val)
                usage_error(program, "Option '%.*s' takes no value: '%s'.", (int) strcspn(word, "="), word, word);
        else
                usage_error(program, "Unknown option '-%c'.", optopt);
}
