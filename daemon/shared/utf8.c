/* SPDX-License-Identifier: GPL-2.0-or-later */
/* utf8.c: validating UTF-8, and showing text that is not (utf8.h says why). */

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD in UTF-8 */

/* RFC 3629 §4's table: the second byte's range depends on the first. */
size_t utf8_sequence_length(const unsigned char *s, size_t n) {
        unsigned char lo = 0x80, hi = 0xBF;
        size_t len;

        if (n == 0)
                return 0;
        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xC2 && s[0] <= 0xDF)
                len = 2;
        else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
                len = 3;
                lo = s[0] == 0xE0 ? 0xA0 : 0x80;
                hi = s[0] == 0xED ? 0x9F : 0xBF;
        } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
                len = 4;
                lo = s[0] == 0xF0 ? 0x90 : 0x80;
                hi = s[0] == 0xF4 ? 0x8F : 0xBF;
        } else
                return 0;
        if (n < len || s[1] < lo || s[1] > hi)
                return 0;
        for (size_t i = 2; i < len; i++)
                if ((s[i] & 0xC0) != 0x80)
                        return 0;
        return len;
}

bool utf8_is_valid(const char *s) {
        const unsigned char *p = (const unsigned char *) s;
        size_t n = strlen(s);

        for (size_t i = 0, len; i < n; i += len) {
                len = utf8_sequence_length(p + i, n - i);
                if (len == 0)
                        return false;
        }
        return true;
}

const char *utf8_or_replaced(const char *s, char **buf) {
        const unsigned char *p = (const unsigned char *) s;
        size_t n = strlen(s), out = 0;
        char *copy;

        if (utf8_is_valid(s))
                return s;
        copy = malloc(n * (sizeof(REPLACEMENT) - 1) + 1);
        if (!copy)
                return NULL;
        for (size_t i = 0, len; i < n; i += len ? len : 1) {
                len = utf8_sequence_length(p + i, n - i);
                if (len == 0) {
                        memcpy(copy + out, REPLACEMENT, sizeof(REPLACEMENT) - 1);
                        out += sizeof(REPLACEMENT) - 1;
                } else {
                        memcpy(copy + out, s + i, len);
                        out += len;
                }
        }
        copy[out] = '\0';
        free(*buf);
        *buf = copy;
        return copy;
}
