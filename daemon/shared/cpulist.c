/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpulist.c: CPU sets in the kernel's list format ("0-3,6").
 *
 * The grammar follows lib/bitmap-str.c bitmap_parselist() for the forms the kernel itself prints
 * (bitmap_print_to_pagebuf() with "%*pbl"): comma-separated items, each "N" or "N-M" with N <= M, whitespace
 * allowed around items, a trailing newline allowed. Unlike the kernel we reject empty items ("1,,2", "1,")
 * and the stride syntax ("0-7:2/4"): this parser reads kernel output and hand-written files, where those are
 * typos rather than intent. Like the kernel, whitespace inside a range ("0 - 3") is an error and a CPU
 * beyond the set's size is -ERANGE, not -EINVAL.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpulist.h"
#include "macro.h"

static const char *skip_space(const char *s) {
        while (isspace((unsigned char) *s))
                s++;
        return s;
}

/* Parses a decimal CPU number at *s and advances *s past it. Digits only: no sign, no base prefix. */
static int parse_cpu(const char **s, unsigned *ret) {
        const char *p = *s;
        unsigned v = 0;
        bool overflow = false;

        if (!isdigit((unsigned char) *p))
                return -EINVAL;

        for (; isdigit((unsigned char) *p); p++) {
                /* Keep consuming digits after an overflow so "99999999999" is one out-of-range number,
                 * not a number followed by garbage. */
                if (v >= CPULIST_MAX_CPUS)
                        overflow = true;
                else
                        v = v * 10 + (unsigned) (*p - '0');
        }
        if (overflow || v >= CPULIST_MAX_CPUS)
                return -ERANGE;

        *s = p;
        *ret = v;
        return 0;
}

/* One item "N" or "N-M" at *s (leading whitespace already skipped); advances *s past it. */
static int parse_item(const char **s, unsigned *ret_first, unsigned *ret_last) {
        unsigned first, last;
        int r;

        r = parse_cpu(s, &first);
        if (r < 0)
                return r;

        last = first;
        if (**s == '-') {
                (*s)++;
                r = parse_cpu(s, &last);
                if (r < 0)
                        return r;
                if (last < first) /* bitmap_parse_region(): start > end is -EINVAL */
                        return -EINVAL;
        }

        *ret_first = first;
        *ret_last = last;
        return 0;
}

int cpulist_parse(const char *s, cpu_set_t *ret) {
        cpu_set_t set;

        if (!s || !ret)
                return -EINVAL;

        CPU_ZERO(&set);
        s = skip_space(s);

        while (*s) {
                unsigned first, last;
                int r;

                r = parse_item(&s, &first, &last);
                if (r < 0)
                        return r;
                for (unsigned cpu = first; cpu <= last; cpu++)
                        CPU_SET(cpu, &set);

                s = skip_space(s);
                if (*s == '\0')
                        break;
                if (*s != ',')
                        return -EINVAL;
                /* A comma must be followed by another item: "1," and "1,,2" are errors. */
                s = skip_space(s + 1);
                if (*s == '\0' || *s == ',')
                        return -EINVAL;
        }

        *ret = set;
        return 0;
}

/* Appends "N" or "N-M" (with a leading comma unless first) to buf at *pos. */
static int append_range(char *buf, size_t size, size_t *pos, bool first, unsigned lo, unsigned hi) {
        int n;

        if (lo == hi)
                n = snprintf(buf + *pos, size - *pos, "%s%u", first ? "" : ",", lo);
        else
                n = snprintf(buf + *pos, size - *pos, "%s%u-%u", first ? "" : ",", lo, hi);
        if (n < 0 || (size_t) n >= size - *pos)
                return -ENOBUFS;

        *pos += (size_t) n;
        return 0;
}

int cpulist_format(const cpu_set_t *set, char *buf, size_t size) {
        size_t pos = 0;
        bool first = true;

        if (!set || !buf || size == 0)
                return -ENOBUFS;

        buf[0] = '\0';
        for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++) {
                unsigned hi = cpu;
                int r;

                if (!CPU_ISSET(cpu, set))
                        continue;
                while (hi + 1 < CPULIST_MAX_CPUS && CPU_ISSET(hi + 1, set))
                        hi++;

                r = append_range(buf, size, &pos, first, cpu, hi);
                if (r < 0) {
                        buf[0] = '\0';
                        return r;
                }
                first = false;
                cpu = hi;
        }

        return 0;
}

int cpulist_first(const cpu_set_t *set) {
        for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++)
                if (CPU_ISSET(cpu, set))
                        return (int) cpu;
        return -ENOENT;
}

int cpulist_last(const cpu_set_t *set) {
        for (unsigned cpu = CPULIST_MAX_CPUS; cpu > 0; cpu--)
                if (CPU_ISSET(cpu - 1, set))
                        return (int) cpu - 1;
        return -ENOENT;
}

void cpulist_subtract(cpu_set_t *set, const cpu_set_t *remove) {
        cpu_set_t both;

        CPU_AND(&both, set, remove);
        CPU_XOR(set, set, &both);
}
