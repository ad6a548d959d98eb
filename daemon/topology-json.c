/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology-json.c: `schedfreqd topology --json`, the topology INI (topology.h) as one JSON object for scripts:
 * a member per section ("system", "policyN"), holding the section's keys with the same names and the same
 * optional keys left out. Numbers are numbers; CPU lists stay the kernel's list strings ("0-3,6") as in
 * sysfs and the INI; frequencies_khz, inefficient_khz and governors are arrays.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpulist.h"
#include "topology.h"

/* A JSON string: quotes, backslashes and control characters escaped (RFC 8259 §7); other bytes as they are. */
static void json_string(FILE *f, const char *s) {
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if (*p == '"' || *p == '\\')
                        fprintf(f, "\\%c", *p);
                else if (*p < 0x20)
                        fprintf(f, "\\u%04x", *p);
                else
                        fputc(*p, f);
        }
        fputc('"', f);
}

/* `  "key": ` after the separator from the previous member. */
static void json_key(FILE *f, bool *first, const char *key) {
        fputs(*first ? "\n    " : ",\n    ", f);
        *first = false;
        json_string(f, key);
        fputs(": ", f);
}

static int json_cpulist(FILE *f, bool *first, const char *key, const cpu_set_t *set) {
        /* As topology.c's writer: 1024 CPUs alternating on/off is the longest list, < 4096 bytes. */
        char buf[4096];
        int r;

        r = cpulist_format(set, buf, sizeof(buf));
        if (r < 0)
                return r;
        json_key(f, first, key);
        json_string(f, buf);
        return 0;
}

static void json_u64(FILE *f, bool *first, const char *key, uint64_t v) {
        json_key(f, first, key);
        fprintf(f, "%" PRIu64, v);
}

/* "conservative ondemand userspace" → ["conservative", "ondemand", "userspace"] */
static void json_words(FILE *f, const char *words) {
        bool any = false;

        fputc('[', f);
        for (const char *p = words; *p;) {
                size_t n;

                p += strspn(p, " \t");
                n = strcspn(p, " \t");
                if (n == 0)
                        break;
                fputs(any ? ", \"" : "\"", f);
                /* Governor names are [a-z_-]: nothing to escape, but stay valid JSON whatever sysfs said. */
                for (size_t i = 0; i < n; i++)
                        if (p[i] == '"' || p[i] == '\\' || (unsigned char) p[i] < 0x20)
                                fputc('_', f);
                        else
                                fputc(p[i], f);
                fputc('"', f);
                any = true;
                p += n;
        }
        fputc(']', f);
}

/* "key": [n, n, ...] of kHz values. */
static void json_khz_array(FILE *f, bool *first, const char *key, const uint32_t *khz, size_t n) {
        json_key(f, first, key);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s%" PRIu32, i == 0 ? "[" : ", ", khz[i]);
        fputc(']', f);
}

static int json_policy(FILE *f, const PolicyDesc *d) {
        bool first = true;
        int r;

        fprintf(f, ",\n  \"policy%u\": {", d->id);
        r = json_cpulist(f, &first, "cpus", &d->cpus);
        if (r < 0)
                return r;
        json_key(f, &first, "driver");
        json_string(f, d->driver);
        json_u64(f, &first, "cpuinfo_min_khz", d->cpuinfo_min_khz);
        json_u64(f, &first, "cpuinfo_max_khz", d->cpuinfo_max_khz);
        json_u64(f, &first, "scaling_min_khz", d->scaling_min_khz);
        json_u64(f, &first, "scaling_max_khz", d->scaling_max_khz);
        if (d->frequencies_khz && d->n_frequencies > 0)
                json_khz_array(f, &first, "frequencies_khz", d->frequencies_khz, d->n_frequencies);
        if (d->inefficient_khz && d->n_inefficient > 0)
                json_khz_array(f, &first, "inefficient_khz", d->inefficient_khz, d->n_inefficient);
        if (d->capacity > 0)
                json_u64(f, &first, "capacity", d->capacity);
        json_u64(f, &first, "transition_latency_ns", d->transition_latency_ns);
        if (d->governor[0]) {
                json_key(f, &first, "governor");
                json_string(f, d->governor);
        }
        if (d->governors[0]) {
                json_key(f, &first, "governors");
                json_words(f, d->governors);
        }
        if (d->cur_khz > 0)
                json_u64(f, &first, "cur_khz", d->cur_khz);
        if (d->has_rate_limit)
                json_u64(f, &first, "rate_limit_us", d->rate_limit_us);
        fputs("\n  }", f);
        return 0;
}

int topology_write_json(FILE *f, const Topology *t) {
        bool first = true;
        int r;

        if (!f || !t)
                return -EINVAL;

        fputs("{\n  \"system\": {", f);
        r = json_cpulist(f, &first, "online", &t->online);
        if (r < 0)
                return r;
        r = json_cpulist(f, &first, "possible", &t->possible);
        if (r < 0)
                return r;
        fputs("\n  }", f);

        for (size_t i = 0; i < t->n_policies; i++) {
                r = json_policy(f, &t->policies[i]);
                if (r < 0)
                        return r;
        }
        fputs("\n}\n", f);

        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}
