/* SPDX-License-Identifier: GPL-2.0-or-later */
/* string-util.c: see include/string-util.h. */

#include <ctype.h>
#include <string.h>

#include "string-util.h"

char *strip(char *s) {
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                e--;
        *e = '\0';
        return s;
}
