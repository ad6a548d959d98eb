/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kparse.c: the kernel's parsers for sysfs writes, so the emulator accepts and rejects exactly what the
 * kernel does. The buffer passed in is NUL-terminated at the written length, as kernfs_fop_write_iter()
 * (fs/kernfs/file.c) hands it to the store function.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "emu.h"

/* The kernel's isspace() (lib/ctype.c) for the ASCII range: space and \t \n \v \f \r. */
static bool k_isspace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
}

static int digit_value(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return 99;
}

static char k_tolower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c - 'A' + 'a') : c;
}

/* _parse_integer_fixup_radix() (lib/kstrtox.c) for base 0: "0x" + hex digit is hex, a leading 0 octal. */
static const char *fixup_radix(const char *s, unsigned *ret_base) {
        if (s[0] == '0') {
                if (k_tolower(s[1]) == 'x' && digit_value(s[2]) < 16) {
                        *ret_base = 16;
                        return s + 2;
                }
                *ret_base = 8;
                return s;
        }
        *ret_base = 10;
        return s;
}

/* _parse_integer() (lib/kstrtox.c): digits of @base, counting overflow instead of stopping at it. */
static size_t parse_digits(const char *s, unsigned base, unsigned long long *ret, bool *ret_overflow) {
        unsigned long long v = 0;
        bool overflow = false;
        size_t n = 0;

        for (; digit_value(s[n]) < (int) base; n++) {
                unsigned d = (unsigned) digit_value(s[n]);

                if (v > (~0ULL - d) / base)
                        overflow = true;
                v = v * base + d;
        }

        *ret = v;
        *ret_overflow = overflow;
        return n;
}

/*
 * kstrtouint(s, @base, &v) (lib/kstrtox.c): an optional '+', the number (base 0: decimal, 0x-hex or 0-octal;
 * base 16 also takes a 0x prefix), then at most one '\n'. Overflow is -ERANGE, anything else -EINVAL.
 */
int kparse_kstrtouint_base(const char *s, unsigned base, unsigned *ret) {
        unsigned long long v;
        bool overflow;
        size_t n;

        if (s[0] == '+')
                s++;
        if (base == 0)
                s = fixup_radix(s, &base);
        else if (base == 16 && s[0] == '0' && k_tolower(s[1]) == 'x' && digit_value(s[2]) < 16)
                s += 2;
        n = parse_digits(s, base, &v, &overflow);
        if (overflow)
                return -ERANGE;
        if (n == 0)
                return -EINVAL;
        s += n;
        if (*s == '\n')
                s++;
        if (*s)
                return -EINVAL;
        if (v > UINT32_MAX)
                return -ERANGE;

        *ret = (unsigned) v;
        return 0;
}

/* kstrtouint(s, 0, &v), used by store_scaling_setspeed() since 6.16. */
int kparse_kstrtouint(const char *s, unsigned *ret) {
        return kparse_kstrtouint_base(s, 0, ret);
}

/*
 * sscanf(buf, "%lu", &v) == 1 (lib/vsprintf.c vsscanf()), used by store_scaling_{min,max}_freq(): leading
 * whitespace, then a decimal digit is required (no sign), trailing text is ignored, and simple_strntoull()
 * wraps silently on overflow.
 */
int kparse_sscanf_ulong(const char *s, unsigned long *ret) {
        unsigned long long v;
        bool overflow;

        while (k_isspace(*s))
                s++;
        if (digit_value(*s) >= 10)
                return -EINVAL;

        (void) parse_digits(s, 10, &v, &overflow);
        *ret = (unsigned long) v;
        return 0;
}

/* kstrtobool() (lib/kstrtox.c), used by online_store() in drivers/base/core.c: only the first characters count. */
int kparse_kstrtobool(const char *s, bool *ret) {
        switch (s[0]) {
        case 'y': case 'Y': case 't': case 'T': case '1':
                *ret = true;
                return 0;
        case 'n': case 'N': case 'f': case 'F': case '0':
                *ret = false;
                return 0;
        case 'o': case 'O':
                switch (s[1]) {
                case 'n': case 'N':
                        *ret = true;
                        return 0;
                case 'f': case 'F':
                        *ret = false;
                        return 0;
                }
                break;
        }
        return -EINVAL;
}

/* sscanf(buf, "%15s", str) == 1 (store_scaling_governor()): the first word, cut at 15 characters. */
int kparse_word(const char *s, char ret[EMU_GOVERNOR_NAME_MAX + 1]) {
        size_t n = 0;

        while (k_isspace(*s))
                s++;
        while (s[n] && !k_isspace(s[n]) && n < EMU_GOVERNOR_NAME_MAX)
                n++;
        if (n == 0)
                return -EINVAL;

        memcpy(ret, s, n);
        ret[n] = '\0';
        return 0;
}
