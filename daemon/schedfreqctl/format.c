/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format.c: how schedfreqctl writes times, CPU lists and JSON. `--json` is one object per snapshot:
 * {"daemon":{...},"policies":[...],"cpus":[...]}, each object its "path" and every property by its D-Bus name.
 */

#include <inttypes.h>
#include <stdio.h>

#include "format.h"
#include "time-util.h"

const char *format_ago(char *buf, size_t size, uint64_t then_usec) {
        uint64_t now = monotonic_usec();

        if (then_usec == 0)
                snprintf(buf, size, "never");
        else if (then_usec > now)
                snprintf(buf, size, "just now");
        else if (now - then_usec < 10 * UINT64_C(1000000))
                snprintf(buf, size, "%.1f s ago", (double) (now - then_usec) / 1e6);
        else
                snprintf(buf, size, "%" PRIu64 " s ago", (now - then_usec) / 1000000);
        return buf;
}

const char *format_duration(char *buf, size_t size, uint64_t usec) {
        uint64_t s = usec / 1000000;

        if (s >= 86400)
                snprintf(buf, size, "%" PRIu64 "d %" PRIu64 "h", s / 86400, s % 86400 / 3600);
        else if (s >= 3600)
                snprintf(buf, size, "%" PRIu64 "h %" PRIu64 "min", s / 3600, s % 3600 / 60);
        else if (s >= 60)
                snprintf(buf, size, "%" PRIu64 "min %" PRIu64 "s", s / 60, s % 60);
        else
                snprintf(buf, size, "%.1fs", (double) usec / 1e6);
        return buf;
}

const char *format_cpus(char *buf, size_t size, const Prop *p) {
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; p && i < p->n_array && len < size; i++) {
                /* Collapse runs: 0-3,6 */
                size_t j = i;
                while (j + 1 < p->n_array && p->array[j + 1] == p->array[j] + 1)
                        j++;
                int w = j > i ? snprintf(buf + len, size - len, "%s%" PRIu64 "-%" PRIu64, len ? "," : "", p->array[i], p->array[j])
                              : snprintf(buf + len, size - len, "%s%" PRIu64, len ? "," : "", p->array[i]);
                if (w < 0)
                        break;
                len += (size_t) w;
                i = j;
        }
        return buf;
}

void json_string(const char *s) {
        putchar('"');
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;

                if (c == '"' || c == '\\')
                        printf("\\%c", c);
                else if (c == '\n')
                        fputs("\\n", stdout);
                else if (c < 0x20)
                        printf("\\u%04x", c);
                else
                        putchar(c);
        }
        putchar('"');
}

static void json_object(const Object *o) {
        printf("{\"path\":");
        json_string(o->path);
        for (size_t i = 0; i < o->n_props; i++) {
                const Prop *p = &o->props[i];

                putchar(',');
                json_string(p->name);
                putchar(':');
                switch (p->type) {
                case 's':
                        json_string(p->s ? p->s : "");
                        break;
                case 'b':
                        fputs(p->u ? "true" : "false", stdout);
                        break;
                case 'i':
                        printf("%" PRId64, p->i);
                        break;
                case 'a':
                        putchar('[');
                        for (size_t k = 0; k < p->n_array; k++)
                                printf("%s%" PRIu64, k ? "," : "", p->array[k]);
                        putchar(']');
                        break;
                default:
                        printf("%" PRIu64, p->u);
                        break;
                }
        }
        putchar('}');
}

void print_json(const Snapshot *s) {
        printf("{\"daemon\":");
        json_object(&s->daemon);
        printf(",\"policies\":[");
        for (size_t i = 0; i < s->n_policies; i++) {
                if (i)
                        putchar(',');
                json_object(&s->policies[i]);
        }
        printf("],\"cpus\":[");
        for (size_t i = 0; i < s->n_cpus; i++) {
                if (i)
                        putchar(',');
                json_object(&s->cpus[i]);
        }
        printf("]}\n");
}
