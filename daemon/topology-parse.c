/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology-parse.c: the topology INI reader (include/topology.h: topology_parse*()) and its validation.
 *
 * The INI reader is our own because the emulator links without inih: sections "[name]", "key = value",
 * full-line comments starting with '#' or ';', inline comments introduced by whitespace + '#' or ';',
 * blank lines, CRLF line ends and a UTF-8 BOM. Unlike inih, a repeated key or section is an error: a
 * topology is a description, not a stack of overrides.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpufreq-driver.h"
#include "cpulist.h"
#include "macro.h"
#include "string-util.h"
#include "topology.h"

/* CPUFREQ_NAME_LEN (include/linux/cpufreq.h) is 16 including the NUL; store_scaling_governor() reads
 * at most 15 characters ("%15s"), so longer governor names can never be selected. */
#define GOVERNOR_NAME_MAX 15

typedef enum PolicyKey {
        KEY_CPUS,
        KEY_DRIVER,
        KEY_CPUINFO_MIN,
        KEY_CPUINFO_MAX,
        KEY_SCALING_MIN,
        KEY_SCALING_MAX,
        KEY_FREQUENCIES,
        KEY_CAPACITY,
        KEY_LATENCY,
        KEY_GOVERNOR,
        KEY_GOVERNORS,
        KEY_CUR,
        KEY_RATE_LIMIT,
        _KEY_MAX,
} PolicyKey;

typedef struct Parser Parser;
typedef int (*KeyParser)(Parser *p, PolicyDesc *d, const char *value);

typedef struct PolicyParse {
        PolicyDesc desc;
        unsigned section_line;
        unsigned key_line[_KEY_MAX]; /* 0: key not given */
} PolicyParse;

typedef enum Section {
        SECTION_NONE,
        SECTION_SYSTEM,
        SECTION_POLICY,
} Section;

struct Parser {
        const char *name;
        unsigned line;
        char *error;               /* first error, "NAME:LINE: reason" */
        Topology *topology;
        Section section;

        PolicyParse policy;        /* valid while section == SECTION_POLICY */
        cpu_set_t used;            /* CPUs of the policies finished so far */

        unsigned system_line, online_line, possible_line;
        cpu_set_t online, possible;
};

/* analyze: false positive: reason is initialised to NULL and set by vasprintf(); gcc 12 at -O2 loses the
 * initialiser of a _cleanup_free_ variable on an early return (docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
_printf_(3, 4)
static int parser_error(Parser *p, unsigned line, const char *format, ...) {
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

/* An error about the whole file, without a line: "NAME: reason". */
static int parser_error_file(Parser *p, const char *reason) {
        if (p->error)
                return -EINVAL;
        if (asprintf(&p->error, "%s: %s", p->name, reason) < 0) {
                p->error = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

/* Decimal digits only (no sign, no base prefix, no trailing text), at most @max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *ret) {
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

        r = parse_uint(value, UINT32_MAX, &v);
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

static int key_frequencies(Parser *p, PolicyDesc *d, const char *value) {
        _cleanup_free_ uint32_t *table = NULL;
        _cleanup_free_ char *copy = NULL;
        size_t n = 0, allocated = 0;
        char *save = NULL;

        copy = strdup(value);
        if (!copy)
                return -ENOMEM;

        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                uint32_t khz = 0;
                int r;

                r = parse_khz_value(p, "frequencies_khz", w, &khz);
                if (r < 0)
                        return r;
                /* Ascending without duplicates, as cpufreq_table_validate_and_sort() classifies the
                 * tables the resolution code (find_index_al/ah) relies on. */
                if (n > 0 && khz <= table[n - 1])
                        return parser_error(p, p->line, "frequencies_khz: %" PRIu32 " after %" PRIu32
                                            ": the table must be strictly ascending", khz, table[n - 1]);
                if (n == allocated) {
                        uint32_t *a;

                        allocated = allocated ? allocated * 2 : 16;
                        a = realloc(table, allocated * sizeof(uint32_t));
                        if (!a)
                                return -ENOMEM;
                        table = a;
                }
                table[n++] = khz;
        }
        if (n == 0)
                return parser_error(p, p->line, "frequencies_khz: the table is empty");

        free(d->frequencies_khz);
        d->frequencies_khz = TAKE_PTR(table);
        d->n_frequencies = n;
        return 0;
}

static int key_capacity(Parser *p, PolicyDesc *d, const char *value) {
        uint64_t v;

        if (parse_uint(value, CAPACITY_SCALE, &v) < 0)
                return parser_error(p, p->line, "capacity: \"%s\" is not a number in 0..%u", value, CAPACITY_SCALE);

        d->capacity = (unsigned) v;
        return 0;
}

static int key_latency(Parser *p, PolicyDesc *d, const char *value) {
        uint64_t v;

        /* cpuinfo.transition_latency is an unsigned int shown with "%u" (drivers/cpufreq/cpufreq.c);
         * 4294967295 is CPUFREQ_ETERNAL. */
        if (parse_uint(value, UINT32_MAX, &v) < 0)
                return parser_error(p, p->line, "transition_latency_ns: \"%s\" is not a number in 0..%" PRIu32,
                                    value, UINT32_MAX);

        d->transition_latency_ns = v;
        return 0;
}

static int key_rate_limit(Parser *p, PolicyDesc *d, const char *value) {
        uint64_t v;

        /* sugov_tunables.rate_limit_us is an unsigned int, stored with kstrtouint() (rate_limit_us_store() in
         * kernel/sched/cpufreq_schedutil.c); 0 is valid (no rate limit). */
        if (parse_uint(value, UINT32_MAX, &v) < 0)
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

static const struct {
        const char *name;
        KeyParser parse;
} policy_keys[_KEY_MAX] = {
        [KEY_CPUS]        = { "cpus",                  key_cpus },
        [KEY_DRIVER]      = { "driver",                key_driver },
        [KEY_CPUINFO_MIN] = { "cpuinfo_min_khz",       key_cpuinfo_min },
        [KEY_CPUINFO_MAX] = { "cpuinfo_max_khz",       key_cpuinfo_max },
        [KEY_SCALING_MIN] = { "scaling_min_khz",       key_scaling_min },
        [KEY_SCALING_MAX] = { "scaling_max_khz",       key_scaling_max },
        [KEY_FREQUENCIES] = { "frequencies_khz",       key_frequencies },
        [KEY_CAPACITY]    = { "capacity",              key_capacity },
        [KEY_LATENCY]     = { "transition_latency_ns", key_latency },
        [KEY_GOVERNOR]    = { "governor",              key_governor },
        [KEY_GOVERNORS]   = { "governors",             key_governors },
        [KEY_CUR]         = { "cur_khz",               key_cur },
        [KEY_RATE_LIMIT]  = { "rate_limit_us",         key_rate_limit },
};

/* The line to blame for a check involving @key: where it was given, else the section header. */
static unsigned key_line(const PolicyParse *pp, PolicyKey key) {
        return pp->key_line[key] ?: pp->section_line;
}

static int policy_check_required(Parser *p, PolicyParse *pp) {
        PolicyDesc *d = &pp->desc;

        if (!pp->key_line[KEY_CPUS])
                return parser_error(p, pp->section_line, "[policy%u] lacks cpus", d->id);
        if (!pp->key_line[KEY_DRIVER])
                return parser_error(p, pp->section_line, "[policy%u] lacks driver", d->id);

        /* Like cpufreq_table_validate_and_sort() → cpufreq_frequency_table_cpuinfo(), a table implies the
         * hardware limits when they are not given. */
        if (!pp->key_line[KEY_CPUINFO_MIN]) {
                if (!d->frequencies_khz)
                        return parser_error(p, pp->section_line, "[policy%u] lacks cpuinfo_min_khz", d->id);
                d->cpuinfo_min_khz = d->frequencies_khz[0];
        }
        if (!pp->key_line[KEY_CPUINFO_MAX]) {
                if (!d->frequencies_khz)
                        return parser_error(p, pp->section_line, "[policy%u] lacks cpuinfo_max_khz", d->id);
                d->cpuinfo_max_khz = d->frequencies_khz[d->n_frequencies - 1];
        }

        if (!pp->key_line[KEY_SCALING_MIN])
                d->scaling_min_khz = d->cpuinfo_min_khz;
        if (!pp->key_line[KEY_SCALING_MAX])
                d->scaling_max_khz = d->cpuinfo_max_khz;
        if (!pp->key_line[KEY_LATENCY])
                d->transition_latency_ns = TOPOLOGY_DEFAULT_LATENCY_NS;
        return 0;
}

static int policy_check_frequencies(Parser *p, PolicyParse *pp) {
        PolicyDesc *d = &pp->desc;

        if (d->cpuinfo_min_khz == 0)
                return parser_error(p, key_line(pp, KEY_CPUINFO_MIN), "cpuinfo_min_khz must be above 0");
        if (d->cpuinfo_min_khz > d->cpuinfo_max_khz)
                return parser_error(p, key_line(pp, KEY_CPUINFO_MIN),
                                    "cpuinfo_min_khz %" PRIu32 " is above cpuinfo_max_khz %" PRIu32,
                                    d->cpuinfo_min_khz, d->cpuinfo_max_khz);
        if (d->scaling_min_khz > d->scaling_max_khz)
                return parser_error(p, key_line(pp, KEY_SCALING_MIN),
                                    "scaling_min_khz %" PRIu32 " is above scaling_max_khz %" PRIu32,
                                    d->scaling_min_khz, d->scaling_max_khz);
        if (d->scaling_min_khz < d->cpuinfo_min_khz)
                return parser_error(p, key_line(pp, KEY_SCALING_MIN),
                                    "scaling_min_khz %" PRIu32 " is below cpuinfo_min_khz %" PRIu32,
                                    d->scaling_min_khz, d->cpuinfo_min_khz);
        if (d->scaling_max_khz > d->cpuinfo_max_khz)
                return parser_error(p, key_line(pp, KEY_SCALING_MAX),
                                    "scaling_max_khz %" PRIu32 " is above cpuinfo_max_khz %" PRIu32,
                                    d->scaling_max_khz, d->cpuinfo_max_khz);
        if (d->frequencies_khz &&
            (d->frequencies_khz[0] < d->cpuinfo_min_khz ||
             d->frequencies_khz[d->n_frequencies - 1] > d->cpuinfo_max_khz))
                return parser_error(p, key_line(pp, KEY_FREQUENCIES),
                                    "frequencies_khz must lie within cpuinfo_min_khz..cpuinfo_max_khz (%" PRIu32
                                    "..%" PRIu32 ")", d->cpuinfo_min_khz, d->cpuinfo_max_khz);
        if (d->cur_khz != 0 && (d->cur_khz < d->cpuinfo_min_khz || d->cur_khz > d->cpuinfo_max_khz))
                return parser_error(p, key_line(pp, KEY_CUR),
                                    "cur_khz %" PRIu32 " is outside cpuinfo_min_khz..cpuinfo_max_khz", d->cur_khz);
        return 0;
}

static int policy_check_governor(Parser *p, PolicyParse *pp) {
        PolicyDesc *d = &pp->desc;
        const char *available = d->governors[0] ? d->governors : topology_default_governors(d->driver);

        if (d->governor[0] && !governors_contains(available, d->governor))
                return parser_error(p, key_line(pp, KEY_GOVERNOR), "governor \"%s\" is not one of \"%s\"",
                                    d->governor, available);
        /* The tunable exists only while schedutil governs the policy (sugov_init()/sugov_exit()). */
        if (d->has_rate_limit && !streq(d->governor, "schedutil"))
                return parser_error(p, key_line(pp, KEY_RATE_LIMIT),
                                    "rate_limit_us is schedutil's tunable: it needs governor = schedutil");
        return 0;
}

static int policy_check_cpus(Parser *p, PolicyParse *pp) {
        const PolicyDesc *d = &pp->desc;

        for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++) {
                const PolicyDesc *other;

                if (!CPU_ISSET(cpu, &d->cpus) || !CPU_ISSET(cpu, &p->used))
                        continue;
                other = topology_policy_of_cpu(p->topology, cpu);
                return parser_error(p, key_line(pp, KEY_CPUS), "CPU %u is already in [policy%u]", cpu,
                                    other ? other->id : 0);
        }
        return 0;
}

/* Ends the [policyN] section being read: defaults, checks, then it joins the topology. */
static int policy_finish(Parser *p) {
        PolicyParse *pp = &p->policy;
        int r;

        r = policy_check_required(p, pp);
        if (r < 0)
                return r;
        r = policy_check_frequencies(p, pp);
        if (r < 0)
                return r;
        r = policy_check_governor(p, pp);
        if (r < 0)
                return r;
        r = policy_check_cpus(p, pp);
        if (r < 0)
                return r;

        r = topology_add_policy(p->topology, &pp->desc);
        if (r < 0)
                return r;

        CPU_OR(&p->used, &p->used, &pp->desc.cpus);
        policy_desc_done(&pp->desc);
        p->section = SECTION_NONE;
        return 0;
}

static int section_end(Parser *p) {
        if (p->section == SECTION_POLICY)
                return policy_finish(p);
        p->section = SECTION_NONE;
        return 0;
}

/* "policyN" with N in canonical decimal (no sign, no leading zero), N < CPULIST_MAX_CPUS. */
static int parse_policy_id(const char *name, unsigned *ret) {
        uint64_t v;

        if (strncmp(name, "policy", 6) != 0)
                return -EINVAL;
        name += 6;
        if (name[0] == '0' && name[1] != '\0')
                return -EINVAL;
        if (parse_uint(name, CPULIST_MAX_CPUS - 1, &v) < 0)
                return -EINVAL;

        *ret = (unsigned) v;
        return 0;
}

static int section_begin(Parser *p, const char *name) {
        unsigned id;
        int r;

        r = section_end(p);
        if (r < 0)
                return r;

        if (streq(name, "system")) {
                if (p->system_line)
                        return parser_error(p, p->line, "section [system] repeats line %u", p->system_line);
                p->system_line = p->line;
                p->section = SECTION_SYSTEM;
                return 0;
        }

        if (parse_policy_id(name, &id) < 0)
                return parser_error(p, p->line, "unknown section [%s] (expected [system] or [policyN], N < %d)",
                                    name, CPULIST_MAX_CPUS);
        if (topology_policy_by_id(p->topology, id))
                return parser_error(p, p->line, "section [policy%u] appears twice", id);

        p->policy = (PolicyParse) {
                .desc.id = id,
                .section_line = p->line,
        };
        p->section = SECTION_POLICY;
        return 0;
}

static int system_key(Parser *p, const char *key, const char *value) {
        unsigned *line;
        cpu_set_t *set;
        int r;

        if (streq(key, "online")) {
                line = &p->online_line;
                set = &p->online;
        } else if (streq(key, "possible")) {
                line = &p->possible_line;
                set = &p->possible;
        } else
                return parser_error(p, p->line, "unknown key \"%s\" in [system]", key);

        if (*line)
                return parser_error(p, p->line, "%s is set twice (first on line %u)", key, *line);

        r = cpulist_parse(value, set);
        if (r == -ERANGE)
                return parser_error(p, p->line, "%s: \"%s\" names a CPU above %d", key, value, CPULIST_MAX_CPUS - 1);
        if (r < 0)
                return parser_error(p, p->line, "%s: \"%s\" is not a CPU list", key, value);

        *line = p->line;
        return 0;
}

static int policy_key(Parser *p, const char *key, const char *value) {
        PolicyParse *pp = &p->policy;

        for (PolicyKey k = 0; k < _KEY_MAX; k++) {
                int r;

                if (!streq(key, policy_keys[k].name))
                        continue;
                if (pp->key_line[k])
                        return parser_error(p, p->line, "%s is set twice (first on line %u)", key, pp->key_line[k]);

                r = policy_keys[k].parse(p, &pp->desc, value);
                if (r < 0)
                        return r;
                pp->key_line[k] = p->line;
                return 0;
        }

        return parser_error(p, p->line, "unknown key \"%s\" in [policy%u]", key, pp->desc.id);
}

/* Cuts an inline comment: '#' or ';' preceded by whitespace. */
static void cut_inline_comment(char *s) {
        for (char *c = s; *c; c++)
                if ((*c == '#' || *c == ';') && c > s && isspace((unsigned char) c[-1])) {
                        *c = '\0';
                        return;
                }
}

static int parse_line(Parser *p, char *line) {
        char *s, *eq, *key, *value;

        s = strip(line);
        if (*s == '\0' || *s == '#' || *s == ';')
                return 0;
        cut_inline_comment(s);
        s = strip(s);

        if (*s == '[') {
                size_t n = strlen(s);

                if (s[n - 1] != ']')
                        return parser_error(p, p->line, "section header lacks ']'");
                s[n - 1] = '\0';
                s = strip(s + 1);
                if (*s == '\0')
                        return parser_error(p, p->line, "empty section name");
                return section_begin(p, s);
        }

        eq = strchr(s, '=');
        if (!eq)
                return parser_error(p, p->line, "expected \"key = value\" or \"[section]\"");
        *eq = '\0';
        key = strip(s);
        value = strip(eq + 1);
        if (*key == '\0')
                return parser_error(p, p->line, "empty key");

        switch (p->section) {
        case SECTION_SYSTEM:
                return system_key(p, key, value);
        case SECTION_POLICY:
                return policy_key(p, key, value);
        default:
                return parser_error(p, p->line, "\"%s\" outside of a section", key);
        }
}

/* [system] defaults and checks, once every policy is known. */
static int system_finish(Parser *p) {
        Topology *t = p->topology;
        int last;

        t->online = p->online_line ? p->online : p->used;

        if (p->possible_line)
                t->possible = p->possible;
        else {
                cpu_set_t all;

                CPU_OR(&all, &p->used, &t->online);
                CPU_ZERO(&t->possible);
                last = cpulist_last(&all);
                for (int cpu = 0; cpu <= last; cpu++)
                        CPU_SET(cpu, &t->possible);
        }

        for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++)
                if (CPU_ISSET(cpu, &p->used) && !CPU_ISSET(cpu, &t->possible))
                        return parser_error(p, p->possible_line, "CPU %u of [policy%u] is not possible", cpu,
                                            topology_policy_of_cpu(t, cpu)->id);
        for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++)
                if (CPU_ISSET(cpu, &t->online) && !CPU_ISSET(cpu, &t->possible))
                        return parser_error(p, p->online_line ?: p->possible_line,
                                            "online CPU %u is not possible", cpu);
        if (CPU_COUNT(&t->possible) > 0 && CPU_COUNT(&t->online) == 0)
                return parser_error(p, p->online_line ?: p->system_line, "no CPU is online");
        return 0;
}

/*
 * The longest line accepted. A written topology's longest line is a 1024-CPU list ("0,2,4,...,1022", under
 * 4096 bytes) or a frequency table (a few hundred entries of at most 11 characters); the cap keeps a runaway
 * input (a binary, /dev/zero, a line without end) from growing one line without bound.
 */
#define TOPOLOGY_LINE_MAX 65536

/*
 * Reads one line, its '\n' included, into @buf (TOPOLOGY_LINE_MAX + 1 bytes) and NUL-terminates it. Returns
 * 1, 0 at the end of the input, -EBADMSG for a NUL byte (C strings would silently cut the line there), -E2BIG
 * for a line longer than TOPOLOGY_LINE_MAX, or the read error (EISDIR, EIO, ...).
 */
static int read_line(FILE *f, char *buf) {
        size_t n = 0;
        int c;

        while ((c = getc(f)) != EOF) {
                if (c == '\0')
                        return -EBADMSG;
                if (n == TOPOLOGY_LINE_MAX)
                        return -E2BIG;
                buf[n++] = (char) c;
                if (c == '\n')
                        break;
        }
        if (ferror(f))
                return errno > 0 ? -errno : -EIO;

        buf[n] = '\0';
        return n > 0;
}

/* A failure to read the current line: the message names it, a read error's errno is passed on. */
static int parser_read_error(Parser *p, int r) {
        switch (r) {
        case -EBADMSG:
                return parser_error(p, p->line, "NUL byte in line");
        case -E2BIG:
                return parser_error(p, p->line, "line too long (more than %d bytes)", TOPOLOGY_LINE_MAX);
        default:
                if (parser_error(p, p->line, "read error: %s", strerror(-r)) == -ENOMEM)
                        return -ENOMEM;
                return r;
        }
}

static int parse_lines(Parser *p, FILE *f) {
        _cleanup_free_ char *line = NULL;
        int r;

        line = malloc(TOPOLOGY_LINE_MAX + 1);
        if (!line)
                return -ENOMEM;

        for (;;) {
                char *s = line;

                p->line++;
                r = read_line(f, line);
                if (r < 0)
                        return parser_read_error(p, r);
                if (r == 0)
                        break;
                if (p->line == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
                        s += 3; /* UTF-8 byte order mark */

                r = parse_line(p, s);
                if (r < 0)
                        return r;
        }

        r = section_end(p);
        if (r < 0)
                return r;
        /* An empty file is more likely a failed `schedfreqd topology > FILE` than a description: a machine
         * without cpufreq is described by its [system] section alone, as topology_write() prints it. */
        if (!p->system_line && p->topology->n_policies == 0)
                return parser_error_file(p, "no [system] or [policyN] section (an empty file?)");
        return system_finish(p);
}

int topology_parse_file(FILE *f, const char *name, Topology **ret, char **ret_error) {
        _cleanup_(topology_freep) Topology *t = NULL;
        Parser p = {
                .name = name ?: "(topology)",
        };
        int r;

        if (!f || !ret)
                return -EINVAL;

        r = topology_new(&t);
        if (r < 0)
                return r;
        p.topology = t;
        CPU_ZERO(&p.used);
        CPU_ZERO(&p.online);
        CPU_ZERO(&p.possible);

        r = parse_lines(&p, f);
        policy_desc_done(&p.policy.desc); /* a section abandoned by an error */
        if (r < 0) {
                /* Every failure names the file, even one without a line to blame (-ENOMEM). */
                if (!p.error && asprintf(&p.error, "%s: %s", p.name, strerror(-r)) < 0)
                        p.error = NULL;
                if (ret_error)
                        *ret_error = TAKE_PTR(p.error);
                free(p.error);
                return r;
        }

        *ret = TAKE_PTR(t);
        return 0;
}

/* Sets *@ret_error to "PATH: strerror" (best effort), passes @r through. */
static int topology_file_error(const char *path, int r, char **ret_error) {
        if (ret_error && asprintf(ret_error, "%s: %s", path, strerror(-r)) < 0)
                *ret_error = NULL;
        return r;
}

int topology_load(const char *path, Topology **ret, char **ret_error) {
        _cleanup_fclose_ FILE *f = NULL;
        struct stat st;

        if (!path)
                return -EINVAL;

        f = fopen(path, "re");
        if (!f)
                return topology_file_error(path, negative_errno(), ret_error);
        /* fopen() opens a directory for reading; the first read would fail with a bare EISDIR. */
        if (fstat(fileno(f), &st) < 0)
                return topology_file_error(path, negative_errno(), ret_error);
        if (S_ISDIR(st.st_mode))
                return topology_file_error(path, -EISDIR, ret_error);

        return topology_parse_file(f, path, ret, ret_error);
}
