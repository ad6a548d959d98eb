/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.c: the topology (include/topology.h): the object, its queries, the INI writer, and the frequency
 * resolution helper shared by the engine and the cpufreq emulator. The INI reader: topology-parse.c.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cpulist.h"
#include "macro.h"
#include "topology.h"


/* ---- Topology object ---- */

void policy_desc_done(PolicyDesc *p) {
        free(p->frequencies_khz);
        p->frequencies_khz = NULL;
        p->n_frequencies = 0;
        free(p->inefficient_khz);
        p->inefficient_khz = NULL;
        p->n_inefficient = 0;
}

Topology *topology_free(Topology *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_policies; i++)
                policy_desc_done(&t->policies[i]);
        free(t->policies);
        free(t);
        return NULL;
}

int topology_new(Topology **ret) {
        Topology *t;

        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        CPU_ZERO(&t->online);
        CPU_ZERO(&t->possible);

        *ret = t;
        return 0;
}

/* The policies array grows in powers of two (at least 4), so appending 1024 per-CPU policies stays linear. */
static size_t policies_capacity(size_t n) {
        size_t c = 4;

        while (c < n)
                c <<= 1;
        return c;
}

/* A malloc'd copy of @n entries of @src; NULL for none (or out of memory, which @n > 0 tells apart). */
static uint32_t *khz_array_copy(const uint32_t *src, size_t n) {
        uint32_t *a;

        if (!src || n == 0)
                return NULL;
        a = malloc(n * sizeof(uint32_t));
        if (a)
                memcpy(a, src, n * sizeof(uint32_t));
        return a;
}

int policy_desc_copy(const PolicyDesc *p, PolicyDesc *ret) {
        PolicyDesc copy = *p;

        copy.frequencies_khz = khz_array_copy(p->frequencies_khz, p->n_frequencies);
        copy.n_frequencies = copy.frequencies_khz ? p->n_frequencies : 0;
        if (!copy.frequencies_khz && p->frequencies_khz && p->n_frequencies > 0)
                return -ENOMEM;
        copy.inefficient_khz = khz_array_copy(p->inefficient_khz, p->n_inefficient);
        copy.n_inefficient = copy.inefficient_khz ? p->n_inefficient : 0;
        if (!copy.inefficient_khz && p->inefficient_khz && p->n_inefficient > 0) {
                free(copy.frequencies_khz);
                return -ENOMEM;
        }

        *ret = copy;
        return 0;
}

int topology_add_policy(Topology *t, const PolicyDesc *p) {
        PolicyDesc copy;
        size_t at;
        int r;

        if (!t || !p)
                return -EINVAL;

        for (at = 0; at < t->n_policies; at++) {
                if (t->policies[at].id == p->id)
                        return -EEXIST;
                if (t->policies[at].id > p->id)
                        break;
        }

        if (t->n_policies == 0 || t->n_policies == policies_capacity(t->n_policies)) {
                PolicyDesc *a;

                a = realloc(t->policies, policies_capacity(t->n_policies + 1) * sizeof(PolicyDesc));
                if (!a)
                        return -ENOMEM;
                t->policies = a;
        }

        r = policy_desc_copy(p, &copy);
        if (r < 0)
                return r;

        memmove(t->policies + at + 1, t->policies + at, (t->n_policies - at) * sizeof(PolicyDesc));
        t->policies[at] = copy;
        t->n_policies++;
        return 0;
}

/* ---- Queries ---- */

const PolicyDesc *topology_policy_of_cpu(const Topology *t, unsigned cpu) {
        if (!t || cpu >= CPULIST_MAX_CPUS)
                return NULL;
        for (size_t i = 0; i < t->n_policies; i++)
                if (CPU_ISSET(cpu, &t->policies[i].cpus))
                        return &t->policies[i];
        return NULL;
}

const PolicyDesc *topology_policy_by_id(const Topology *t, unsigned id) {
        for (size_t i = 0; t && i < t->n_policies; i++)
                if (t->policies[i].id == id)
                        return &t->policies[i];
        return NULL;
}

const char *topology_default_governors(const char *driver) {
        if (cpufreq_driver_is_setpolicy(driver))
                return "performance powersave";
        /* Registration order of the in-tree governors when all are built (the order
         * show_scaling_available_governors() prints on a typical distribution kernel). */
        return "conservative ondemand userspace powersave performance schedutil";
}

bool governors_contains(const char *governors, const char *name) {
        size_t n;

        if (!governors || !name || !*name)
                return false;

        n = strlen(name);
        for (const char *s = governors; *s;) {
                size_t w;

                while (isspace((unsigned char) *s))
                        s++;
                w = strcspn(s, " \t\n");
                if (w == n && strncmp(s, name, n) == 0)
                        return true;
                s += w;
        }
        return false;
}

bool policy_khz_inefficient(const PolicyDesc *p, uint32_t khz) {
        for (size_t i = 0; p && p->inefficient_khz && i < p->n_inefficient; i++)
                if (p->inefficient_khz[i] == khz)
                        return true;
        return false;
}

/*
 * cpufreq_table_find_index_al() (include/linux/cpufreq.h, 5.16+): the index of the lowest entry >= @khz; when
 * every entry is below it, the highest. With @efficiencies, entries flagged CPUFREQ_INEFFICIENT_FREQ are
 * skipped (cpufreq_for_each_efficient_entry_idx()), so the answer is an efficient entry, or -1 when there is
 * none. Both tables are ascending, so the inefficient ones are walked alongside.
 */
static ssize_t table_find_index_al(const PolicyDesc *p, uint32_t khz, bool efficiencies) {
        ssize_t best = -1;
        size_t skip = 0;

        for (size_t i = 0; i < p->n_frequencies; i++) {
                uint32_t f = p->frequencies_khz[i];

                if (efficiencies) {
                        while (skip < p->n_inefficient && p->inefficient_khz[skip] < f)
                                skip++;
                        if (skip < p->n_inefficient && p->inefficient_khz[skip] == f)
                                continue;
                }
                if (f >= khz)
                        return (ssize_t) i;
                best = (ssize_t) i;
        }
        return best;
}

/* __resolve_freq() (drivers/cpufreq/cpufreq.c) on clamped @khz with @efficiencies as the relation's
 * CPUFREQ_RELATION_E and policy->efficiencies_available (set by cpufreq_table_set_inefficient()). */
static uint32_t resolve_khz(const PolicyDesc *p, uint32_t min_khz, uint32_t max_khz, uint32_t khz, bool efficiencies) {
        ssize_t idx;

        /* cpufreq_driver_resolve_freq(): inverted limits collapse to max. */
        if (min_khz > max_khz)
                min_khz = max_khz;
        khz = CLAMP(khz, min_khz, max_khz);

        if (!p || !p->frequencies_khz || p->n_frequencies == 0)
                return khz; /* __resolve_freq(): no table, the clamped value is the frequency */

        efficiencies = efficiencies && p->inefficient_khz && p->n_inefficient > 0;
        idx = table_find_index_al(p, khz, efficiencies);
        /* cpufreq_frequency_table_target(): "Limit frequency index to honor policy->min/max": an efficient
         * entry outside the limits (or none at all) and the lookup is made again over every entry. */
        if (efficiencies &&
            (idx < 0 || p->frequencies_khz[idx] < min_khz || p->frequencies_khz[idx] > max_khz))
                idx = table_find_index_al(p, khz, false);
        return p->frequencies_khz[idx];
}

uint32_t policy_resolve_khz(const PolicyDesc *p, uint32_t min_khz, uint32_t max_khz, uint32_t khz) {
        /* sugov_update_next_freq() → cpufreq_driver_resolve_freq(): CPUFREQ_RELATION_LE (5.16+, "cpufreq: Use
         * CPUFREQ_RELATION_E in DVFS governors"). */
        return resolve_khz(p, min_khz, max_khz, khz, true);
}

uint32_t policy_resolve_l_khz(const PolicyDesc *p, uint32_t min_khz, uint32_t max_khz, uint32_t khz) {
        return resolve_khz(p, min_khz, max_khz, khz, false);
}

/* ---- Writer ---- */

static int write_cpulist(FILE *f, const char *key, const cpu_set_t *set) {
        /* 1024 CPUs alternating on/off is the longest list: "0,2,4,...,1022" < 4096 bytes. */
        char buf[4096];
        int r;

        r = cpulist_format(set, buf, sizeof(buf));
        if (r < 0)
                return r;
        fprintf(f, "%s = %s\n", key, buf);
        return 0;
}

/* "KEY = N N ..." of kHz values; nothing for an empty list (an optional key left out). */
static void write_khz_list(FILE *f, const char *key, const uint32_t *khz, size_t n) {
        if (!khz || n == 0)
                return;
        fprintf(f, "%s =", key);
        for (size_t i = 0; i < n; i++)
                fprintf(f, " %" PRIu32, khz[i]);
        fputc('\n', f);
}

static int write_policy(FILE *f, const PolicyDesc *d) {
        int r;

        fprintf(f, "\n[policy%u]\n", d->id);
        r = write_cpulist(f, "cpus", &d->cpus);
        if (r < 0)
                return r;
        fprintf(f, "driver = %s\n", d->driver);
        fprintf(f, "cpuinfo_min_khz = %" PRIu32 "\n", d->cpuinfo_min_khz);
        fprintf(f, "cpuinfo_max_khz = %" PRIu32 "\n", d->cpuinfo_max_khz);
        fprintf(f, "scaling_min_khz = %" PRIu32 "\n", d->scaling_min_khz);
        fprintf(f, "scaling_max_khz = %" PRIu32 "\n", d->scaling_max_khz);
        write_khz_list(f, "frequencies_khz", d->frequencies_khz, d->n_frequencies);
        write_khz_list(f, "inefficient_khz", d->inefficient_khz, d->n_inefficient);
        if (d->capacity > 0)
                fprintf(f, "capacity = %u\n", d->capacity);
        fprintf(f, "transition_latency_ns = %" PRIu64 "\n", d->transition_latency_ns);
        if (d->governor[0])
                fprintf(f, "governor = %s\n", d->governor);
        if (d->governors[0])
                fprintf(f, "governors = %s\n", d->governors);
        if (d->cur_khz > 0)
                fprintf(f, "cur_khz = %" PRIu32 "\n", d->cur_khz);
        if (d->has_rate_limit)
                fprintf(f, "rate_limit_us = %" PRIu32 "\n", d->rate_limit_us);
        return 0;
}

int topology_write(FILE *f, const Topology *t) {
        int r;

        if (!f || !t)
                return -EINVAL;

        fputs("# cpufreq topology (schedfreqd topology format)\n[system]\n", f);
        r = write_cpulist(f, "online", &t->online);
        if (r < 0)
                return r;
        r = write_cpulist(f, "possible", &t->possible);
        if (r < 0)
                return r;
        if (t->autogroup)
                fputs("autogroup = yes\n", f);
        if (t->no_delayed_dequeue)
                fputs("delayed_dequeue = no\n", f);

        for (size_t i = 0; i < t->n_policies; i++) {
                r = write_policy(f, &t->policies[i]);
                if (r < 0)
                        return r;
        }

        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}

char *topology_to_string(const Topology *t) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return NULL;
        if (topology_write(f, t) < 0) {
                fclose(f);
                free(buf);
                return NULL;
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}
