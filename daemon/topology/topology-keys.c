/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology-keys.c: the [policyN] keys of the topology format (include/topology.h) and their value parsers, one
 * function a key, each checking its own value only; what involves two keys is checked when the section ends
 * (topology-parse.c). Errors go through parser_error(), here too, so that the reader's two files depend one way:
 * topology-parse.c on this one.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc-util.h"
#include "cpulist.h"
#include "macro.h"
#include "topology-parse-internal.h"

/* CPUFREQ_NAME_LEN (include/linux/cpufreq.h) is 16 including the NUL; store_scaling_governor() reads
 * at most 15 characters ("%15s"), so longer governor names can never be selected. */
#define GOVERNOR_NAME_MAX 15

/* analyze: false positive: reason is initialised to NULL and set by vasprintf(); gcc 12 at -O2 loses the
 * initialiser of a _cleanup_free_ variable on an early return (docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
int parser_error(Parser *p, unsigned line, const char *format, ...) {
        _cleanup_free_ char *reason = NULL;
        va_list ap;
        int r;

        if (p->error)
                return -EINVAL; /* keep the first error: later ones are usually consequences */

        va_start(ap, format);
        r = vasprintf(&reason, format, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;

        if (asprintf(&p->error, "%s:%u: %s", p->name, line, reason) < 0) {
                p->error = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}
ANALYZER_FALSE_POSITIVE_END

int topology_parse_uint(const char *s, uint64_t max, uint64_t *ret) {
        uint64_t v = 0;

        if (!isdigit((unsigned char) *s))
                return -EINVAL;
        for (; *s; s++) {
                if (!isdigit((unsigned char) *s))
                        return -EINVAL;
                if (v > (UINT64_MAX - 9) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        if (v > max)
                return -ERANGE;

        *ret = v;
        return 0;
}

static bool is_one_word(const char *s) {
        return *s && strcspn(s, " \t") == strlen(s);
}

static int parse_khz_value(Parser *p, const char *key, const char *value, uint32_t *ret) {
        uint64_t v;
        int r;

        r = topology_parse_uint(value, UINT32_MAX, &v);
        if (r == -ERANGE)
                return parser_error(p, p->line, "%s: \"%s\" is out of range (max %" PRIu32 ")", key, value,
                                    UINT32_MAX);
        if (r < 0)
                return parser_error(p, p->line, "%s: \"%s\" is not a frequency in kHz", key, value);

        *ret = (uint32_t) v;
        return 0;
}

static int key_cpus(Parser *p, PolicyDesc *d, const char *value) {
        cpu_set_t set;
        int r;

        r = cpulist_parse(value, &set);
        if (r == -ERANGE)
                return parser_error(p, p->line, "cpus: \"%s\" names a CPU above %d", value, CPULIST_MAX_CPUS - 1);
        if (r < 0)
                return parser_error(p, p->line, "cpus: \"%s\" is not a CPU list", value);
        if (CPU_COUNT(&set) == 0)
                return parser_error(p, p->line, "cpus: the list is empty");

        d->cpus = set;
        return 0;
}

static int key_driver(Parser *p, PolicyDesc *d, const char *value) {
        if (!is_one_word(value))
                return parser_error(p, p->line, "driver: \"%s\" is not a driver name", value);
        if (strlen(value) >= sizeof(d->driver))
                return parser_error(p, p->line, "driver: name longer than %zu characters", sizeof(d->driver) - 1);

        strcpy(d->driver, value);
        return 0;
}

static int key_cpuinfo_min(Parser *p, PolicyDesc *d, const char *value) {
        return parse_khz_value(p, "cpuinfo_min_khz", value, &d->cpuinfo_min_khz);
}

static int key_cpuinfo_max(Parser *p, PolicyDesc *d, const char *value) {
        return parse_khz_value(p, "cpuinfo_max_khz", value, &d->cpuinfo_max_khz);
}

static int key_scaling_min(Parser *p, PolicyDesc *d, const char *value) {
        return parse_khz_value(p, "scaling_min_khz", value, &d->scaling_min_khz);
}

static int key_scaling_max(Parser *p, PolicyDesc *d, const char *value) {
        return parse_khz_value(p, "scaling_max_khz", value, &d->scaling_max_khz);
}

static int key_cur(Parser *p, PolicyDesc *d, const char *value) {
        return parse_khz_value(p, "cur_khz", value, &d->cur_khz);
}

/* A strictly ascending list of kHz values, at least one, for @key ("the @what must be ..."); *@ret_khz malloc'd. */
static int parse_khz_list(Parser *p, const char *key, const char *what, const char *value, uint32_t **ret_khz,
                          size_t *ret_n) {
        _cleanup_free_ uint32_t *table = NULL;
        _cleanup_free_ char *copy = NULL;
        size_t n = 0, allocated = 0;
        char *save = NULL;

        copy = strdup(value);
        if (!copy)
                return -ENOMEM;

        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                uint32_t khz = 0, *a;
                int r;

                r = parse_khz_value(p, key, w, &khz);
                if (r < 0)
                        return r;
                /* Ascending without duplicates, as cpufreq_table_validate_and_sort() classifies the
                 * tables the resolution code (find_index_al/ah) relies on. */
                if (n > 0 && khz <= table[n - 1])
                        return parser_error(p, p->line, "%s: %" PRIu32 " after %" PRIu32
                                            ": the %s must be strictly ascending", key, khz, table[n - 1], what);
                a = greedy_realloc(table, &allocated, n + 1, sizeof(uint32_t), 16);
                if (!a)
                        return -ENOMEM;
                table = a;
                table[n++] = khz;
        }
        if (n == 0)
                return parser_error(p, p->line, "%s: the %s is empty", key, what);

        *ret_khz = TAKE_PTR(table);
        *ret_n = n;
        return 0;
}

/* A kHz list key into *@list / *@n, replacing what an earlier line gave. */
static int set_khz_list(Parser *p, const char *key, const char *what, const char *value, uint32_t **list,
                        size_t *n) {
        uint32_t *parsed = NULL;
        size_t n_parsed = 0;
        int r;

        r = parse_khz_list(p, key, what, value, &parsed, &n_parsed);
        if (r < 0)
                return r;
        free(*list);
        *list = parsed;
        *n = n_parsed;
        return 0;
}

static int key_frequencies(Parser *p, PolicyDesc *d, const char *value) {
        return set_khz_list(p, "frequencies_khz", "table", value, &d->frequencies_khz, &d->n_frequencies);
}

/* Each must be an entry of frequencies_khz, checked when the section ends (the table may come later). */
static int key_inefficient(Parser *p, PolicyDesc *d, const char *value) {
        return set_khz_list(p, "inefficient_khz", "list", value, &d->inefficient_khz, &d->n_inefficient);
}

static int key_capacity(Parser *p, PolicyDesc *d, const char *value) {
        uint64_t v;

        if (topology_parse_uint(value, CAPACITY_SCALE, &v) < 0)
                return parser_error(p, p->line, "capacity: \"%s\" is not a number in 0..%u", value, CAPACITY_SCALE);

        d->capacity = (unsigned) v;
        return 0;
}

static int key_latency(Parser *p, PolicyDesc *d, const char *value) {
        uint64_t v;

        /* cpuinfo.transition_latency is an unsigned int shown with "%u" (drivers/cpufreq/cpufreq.c);
         * 4294967295 is CPUFREQ_ETERNAL. */
        if (topology_parse_uint(value, UINT32_MAX, &v) < 0)
                return parser_error(p, p->line, "transition_latency_ns: \"%s\" is not a number in 0..%" PRIu32,
                                    value, UINT32_MAX);

        d->transition_latency_ns = v;
        return 0;
}

static int key_rate_limit(Parser *p, PolicyDesc *d, const char *value) {
        uint64_t v;

        /* sugov_tunables.rate_limit_us is an unsigned int, stored with kstrtouint() (rate_limit_us_store() in
         * kernel/sched/cpufreq_schedutil.c); 0 is valid (no rate limit). */
        if (topology_parse_uint(value, UINT32_MAX, &v) < 0)
                return parser_error(p, p->line, "rate_limit_us: \"%s\" is not a number in 0..%" PRIu32, value,
                                    UINT32_MAX);

        d->rate_limit_us = (uint32_t) v;
        d->has_rate_limit = true;
        return 0;
}

static int key_governor(Parser *p, PolicyDesc *d, const char *value) {
        if (!is_one_word(value) || strlen(value) > GOVERNOR_NAME_MAX)
                return parser_error(p, p->line, "governor: \"%s\" is not a governor name (one word, at most %d characters)",
                                    value, GOVERNOR_NAME_MAX);

        strcpy(d->governor, value);
        return 0;
}

static int key_governors(Parser *p, PolicyDesc *d, const char *value) {
        _cleanup_free_ char *copy = NULL;
        char out[TOPOLOGY_GOVERNORS_MAX] = "";
        char *save = NULL;
        size_t len = 0;

        copy = strdup(value);
        if (!copy)
                return -ENOMEM;

        /* Normalised to single spaces so that write → parse round-trips. */
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                size_t n = strlen(w);

                if (n > GOVERNOR_NAME_MAX)
                        return parser_error(p, p->line, "governors: \"%s\" is longer than %d characters", w,
                                            GOVERNOR_NAME_MAX);
                if (len + (len > 0) + n >= sizeof(out))
                        return parser_error(p, p->line, "governors: the list is longer than %zu characters",
                                            sizeof(out) - 1);
                if (len > 0)
                        out[len++] = ' ';
                memcpy(out + len, w, n + 1);
                len += n;
        }
        if (len == 0)
                return parser_error(p, p->line, "governors: the list is empty");

        strcpy(d->governors, out);
        return 0;
}

const PolicyKeyInfo topology_policy_keys[_KEY_MAX] = {
        [KEY_CPUS]        = { "cpus",                  key_cpus },
        [KEY_DRIVER]      = { "driver",                key_driver },
        [KEY_CPUINFO_MIN] = { "cpuinfo_min_khz",       key_cpuinfo_min },
        [KEY_CPUINFO_MAX] = { "cpuinfo_max_khz",       key_cpuinfo_max },
        [KEY_SCALING_MIN] = { "scaling_min_khz",       key_scaling_min },
        [KEY_SCALING_MAX] = { "scaling_max_khz",       key_scaling_max },
        [KEY_FREQUENCIES] = { "frequencies_khz",       key_frequencies },
        [KEY_INEFFICIENT] = { "inefficient_khz",       key_inefficient },
        [KEY_CAPACITY]    = { "capacity",              key_capacity },
        [KEY_LATENCY]     = { "transition_latency_ns", key_latency },
        [KEY_GOVERNOR]    = { "governor",              key_governor },
        [KEY_GOVERNORS]   = { "governors",             key_governors },
        [KEY_CUR]         = { "cur_khz",               key_cur },
        [KEY_RATE_LIMIT]  = { "rate_limit_us",         key_rate_limit },
};
