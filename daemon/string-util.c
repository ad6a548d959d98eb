/* SPDX-License-Identifier: GPL-2.0-or-later */
/* string-util.c: see include/string-util.h and include/string-table.h. */

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "string-table.h"
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

const char *string_table_lookup_to_string(const char *const *table, size_t len, ssize_t i) {
        return i >= 0 && (size_t) i < len ? table[i] : NULL;
}

ssize_t string_table_lookup_from_string(const char *const *table, size_t len, const char *name) {
        if (!name)
                return -EINVAL;
        for (size_t i = 0; i < len; i++)
                if (table[i] && streq(table[i], name))
                        return (ssize_t) i;
        return -EINVAL;
}
