/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format.c: how schedfreqctl writes times, CPU lists and JSON. `--json` is one object per snapshot:
 * {"daemon":{...},"policies":[...],"cpus":[...]}, each object its "path" and every property by its D-Bus name.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "json-writer.h"
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

/*
 * A short interval (a wait, a latency) in the unit that keeps its first digits: a latency is µs, a wait ms.
 * The bound of ms is where "%.1f" would round up to the next unit ("1000.0 ms").
 */
const char *format_span(char *buf, size_t size, uint64_t usec) {
        if (usec < 1000)
                snprintf(buf, size, "%" PRIu64 " µs", usec);
        else if (usec < 999950)
                snprintf(buf, size, "%.1f ms", (double) usec / 1e3);
        else if (usec < 60 * USEC_PER_SEC)
                snprintf(buf, size, "%.1f s", (double) usec / 1e6);
        else
                format_duration(buf, size, usec);
        return buf;
}

/*
 * A counter in at most 6 columns: exact below 100000, else three significant digits and an SI prefix. A
 * daemon's event counter passes 10^8 in a day, which would push the summary lines past 80 columns.
 */
const char *format_count(char *buf, size_t size, uint64_t n) {
        static const char prefix[] = "kMGTPE";
        double v = (double) n;
        size_t i = 0;

        if (n < 100000) {
                snprintf(buf, size, "%" PRIu64, n);
                return buf;
        }
        for (v /= 1000; v >= 999.5 && i + 1 < sizeof(prefix) - 1; i++)
                v /= 1000;
        snprintf(buf, size, v >= 99.95 ? "%.0f%c" : v >= 9.995 ? "%.1f%c" : "%.2f%c", v, prefix[i]);
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

static void json_prop(JsonWriter *w, const Prop *p) {
        json_key(w, p->name);
        switch (p->type) {
        case 's':
                json_string(w, p->s);
                break;
        case 'b':
                json_bool(w, p->u);
                break;
        case 'i':
                json_i64(w, p->i);
                break;
        case 'a':
                json_array_begin(w);
                for (size_t k = 0; k < p->n_array; k++)
                        json_u64(w, p->array[k]);
                json_array_end(w);
                break;
        default:
                json_u64(w, p->u);
                break;
        }
}

void json_write_object(JsonWriter *w, const Object *o) {
        json_object_begin(w);
        json_member_string(w, "path", o->path);
        for (size_t i = 0; i < o->n_props; i++)
                json_prop(w, &o->props[i]);
        json_object_end(w);
}

static void json_objects(JsonWriter *w, const char *key, const Object *objects, size_t n) {
        json_key(w, key);
        json_array_begin(w);
        for (size_t i = 0; i < n; i++)
                json_write_object(w, &objects[i]);
        json_array_end(w);
}

int stdout_done(int r) {
        if (r < 0)
                return r;
        if (fflush(stdout) != 0 || ferror(stdout)) {
                r = errno > 0 ? -errno : -EIO;
                fprintf(stderr, "Failed to write the output: %s\n", strerror(-r));
                return r;
        }
        return 0;
}

int print_json(const Snapshot *s) {
        JsonWriter w;

        json_writer_init(&w, stdout, 0);
        json_object_begin(&w);
        json_key(&w, "daemon");
        json_write_object(&w, &s->daemon);
        json_objects(&w, "policies", s->policies, s->n_policies);
        json_objects(&w, "cpus", s->cpus, s->n_cpus);
        json_object_end(&w);
        return json_writer_end(&w);
}

/* Columns of @s[0..n): UTF-8 continuation bytes take none ("µs" is two columns, three bytes). */
static size_t columns(const char *s, size_t n) {
        size_t c = 0;

        for (size_t i = 0; i < n; i++)
                c += ((unsigned char) s[i] & 0xC0) != 0x80;
        return c;
}

/* One line of @n bytes: broken at the last space that keeps each piece within @width columns (a word longer than
 * that stays whole); a continuation starts two columns past the line's own indent. */
static void print_wrapped_line(FILE *out, const char *line, size_t n, size_t width) {
        size_t indent = strspn(line, " "), start = 0;
        bool first = true;

        while (start < n) {
                size_t lead = first ? 0 : indent + 2, room = width > lead ? width - lead : 1, end = n, cut = 0;

                if (columns(line + start, n - start) > room) {
                        for (size_t i = start; i < n && columns(line + start, i - start) <= room; i++)
                                if (line[i] == ' ' && i > start + (first ? indent : 0))
                                        cut = i;
                        if (cut > start)
                                end = cut;
                }
                fprintf(out, "%*s%.*s\n", (int) lead, "", (int) (end - start), line + start);
                start = end;
                while (start < n && line[start] == ' ')
                        start++;
                first = false;
        }
        if (n == 0)
                fputc('\n', out);
}

void print_wrapped(FILE *out, const char *text, size_t width) {
        for (const char *p = text; *p;) {
                size_t n = strcspn(p, "\n");

                print_wrapped_line(out, p, n, width);
                p += n + (p[n] == '\n');
        }
}
