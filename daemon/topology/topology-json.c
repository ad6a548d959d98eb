/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology-json.c: `schedfreqd topology --json`, the topology INI (topology.h) as one JSON object for scripts:
 * a member per section ("system", "policyN"), holding the section's keys with the same names and the same
 * optional keys left out. Numbers are numbers; CPU lists stay the kernel's list strings ("0-3,6") as in
 * sysfs and the INI; frequencies_khz, inefficient_khz and governors are arrays; autogroup a boolean.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpulist.h"
#include "json-writer.h"
#include "topology.h"

static int json_cpulist(JsonWriter *w, const char *key, const cpu_set_t *set) {
        /* As topology.c's writer: 1024 CPUs alternating on/off is the longest list, < 4096 bytes. */
        char buf[4096];
        int r;

        r = cpulist_format(set, buf, sizeof(buf));
        if (r < 0)
                return r;
        json_member_string(w, key, buf);
        return 0;
}

/* "conservative ondemand userspace" → ["conservative", "ondemand", "userspace"] */
static void json_words(JsonWriter *w, const char *key, const char *words) {
        json_key(w, key);
        json_array_begin_inline(w);
        for (const char *p = words; *p;) {
                size_t n;

                p += strspn(p, " \t");
                n = strcspn(p, " \t");
                if (n == 0)
                        break;
                json_string_n(w, p, n);
                p += n;
        }
        json_array_end(w);
}

/* "key": [n, n, ...] of kHz values. */
static void json_khz_array(JsonWriter *w, const char *key, const uint32_t *khz, size_t n) {
        json_key(w, key);
        json_array_begin_inline(w);
        for (size_t i = 0; i < n; i++)
                json_u64(w, khz[i]);
        json_array_end(w);
}

static int json_policy(JsonWriter *w, const PolicyDesc *d) {
        char name[32];
        int r;

        snprintf(name, sizeof(name), "policy%u", d->id);
        json_key(w, name);
        json_object_begin(w);
        r = json_cpulist(w, "cpus", &d->cpus);
        if (r < 0)
                return r;
        json_member_string(w, "driver", d->driver);
        json_member_u64(w, "cpuinfo_min_khz", d->cpuinfo_min_khz);
        json_member_u64(w, "cpuinfo_max_khz", d->cpuinfo_max_khz);
        json_member_u64(w, "scaling_min_khz", d->scaling_min_khz);
        json_member_u64(w, "scaling_max_khz", d->scaling_max_khz);
        if (d->frequencies_khz && d->n_frequencies > 0)
                json_khz_array(w, "frequencies_khz", d->frequencies_khz, d->n_frequencies);
        if (d->inefficient_khz && d->n_inefficient > 0)
                json_khz_array(w, "inefficient_khz", d->inefficient_khz, d->n_inefficient);
        if (d->capacity > 0)
                json_member_u64(w, "capacity", d->capacity);
        json_member_u64(w, "transition_latency_ns", d->transition_latency_ns);
        if (d->governor[0])
                json_member_string(w, "governor", d->governor);
        if (d->governors[0])
                json_words(w, "governors", d->governors);
        if (d->cur_khz > 0)
                json_member_u64(w, "cur_khz", d->cur_khz);
        if (d->has_rate_limit)
                json_member_u64(w, "rate_limit_us", d->rate_limit_us);
        json_object_end(w);
        return 0;
}

int topology_write_json(FILE *f, const Topology *t) {
        JsonWriter w;
        int r;

        if (!f || !t)
                return -EINVAL;

        json_writer_init(&w, f, 2);
        json_object_begin(&w);
        json_key(&w, "system");
        json_object_begin(&w);
        r = json_cpulist(&w, "online", &t->online);
        if (r < 0)
                return r;
        r = json_cpulist(&w, "possible", &t->possible);
        if (r < 0)
                return r;
        if (t->autogroup) /* as the INI: only when set */
                json_member_bool(&w, "autogroup", true);
        if (t->no_delayed_dequeue) /* as the INI: only when not the default */
                json_member_bool(&w, "delayed_dequeue", false);
        json_object_end(&w);

        for (size_t i = 0; i < t->n_policies; i++) {
                r = json_policy(&w, &t->policies[i]);
                if (r < 0)
                        return r;
        }
        json_object_end(&w);
        return json_writer_end(&w);
}
