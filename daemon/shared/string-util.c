/* SPDX-License-Identifier: GPL-2.0-or-later */
/* string-util.c: see include/string-util.h and include/string-table.h. */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "macro.h"
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

size_t string_distance(const char *a, const char *b) {
        /* Three rows of the dynamic-programming table: the swap looks two rows back. */
        size_t rows[3][STRING_DISTANCE_MAX + 1];
        size_t la = strlen(a), lb = strlen(b);

        if (la > STRING_DISTANCE_MAX || lb > STRING_DISTANCE_MAX)
                return SIZE_MAX;

        for (size_t j = 0; j <= lb; j++)
                rows[0][j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];

                cur[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        int ca = tolower((unsigned char) a[i - 1]), cb = tolower((unsigned char) b[j - 1]);
                        size_t d = MIN(prev[j] + 1, cur[j - 1] + 1);

                        d = MIN(d, prev[j - 1] + (ca != cb));
                        if (i > 1 && j > 1 && ca == tolower((unsigned char) b[j - 2]) &&
                            tolower((unsigned char) a[i - 2]) == cb)
                                d = MIN(d, prev2[j - 2] + 1);
                        cur[j] = d;
                }
        }
        return rows[la % 3][lb];
}

bool string_is_typo_of(const char *typed, const char *known) {
        size_t d = string_distance(typed, known);

        return d <= 2 && 2 * d < strlen(known);
}

int parse_u32_line(const char *s, uint32_t *ret) {
        unsigned long long v;
        char *end;

        if (!s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno == ERANGE || v > UINT32_MAX)
                return -ERANGE;
        if (*end == '\n')
                end++;
        if (*end != '\0')
                return -EINVAL;
        *ret = (uint32_t) v;
        return 0;
}

bool parse_pid_name(const char *s, int32_t *ret) {
        long v = 0;

        if (!s || !*s)
                return false;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return false;
                v = v * 10 + (*s - '0');
                if (v > INT32_MAX)
                        return false;
        }
        if (v <= 0)
                return false;
        *ret = (int32_t) v;
        return true;
}
