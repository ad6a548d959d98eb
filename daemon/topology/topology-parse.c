/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology-parse.c: the topology INI reader (include/topology.h: topology_parse*()) and its validation; the
 * [policyN] keys' own value parsers are topology-keys.c's.
 *
 * The INI reader is our own because the emulator links without inih: sections "[name]", "key = value",
 * full-line comments starting with '#' or ';', inline comments introduced by whitespace + '#' or ';',
 * blank lines, CRLF line ends and a UTF-8 BOM. Unlike inih, a repeated key or section is an error: a
 * topology is a description, not a stack of overrides.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpulist.h"
#include "macro.h"
#include "string-util.h"
#include "topology-parse-internal.h"
#include "topology.h"


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

/* inefficient_khz flags entries of the table, as cpufreq_table_set_inefficient() (include/linux/cpufreq.h) does
 * for each EM state it finds in policy->freq_table: no table, nothing to flag. */
static int policy_check_inefficient(Parser *p, PolicyParse *pp) {
        const PolicyDesc *d = &pp->desc;

        if (!d->inefficient_khz)
                return 0;
        if (!d->frequencies_khz)
                return parser_error(p, key_line(pp, KEY_INEFFICIENT),
                                    "inefficient_khz flags entries of frequencies_khz, which [policy%u] lacks", d->id);
        for (size_t i = 0; i < d->n_inefficient; i++) {
                bool found = false;

                for (size_t k = 0; !found && k < d->n_frequencies; k++)
                        found = d->frequencies_khz[k] == d->inefficient_khz[i];
                if (!found)
                        return parser_error(p, key_line(pp, KEY_INEFFICIENT),
                                            "inefficient_khz: %" PRIu32 " is not an entry of frequencies_khz",
                                            d->inefficient_khz[i]);
        }
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
        r = policy_check_inefficient(p, pp);
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
        if (topology_parse_uint(name, CPULIST_MAX_CPUS - 1, &v) < 0)
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

/* @key = yes|no (or 1|0), once: into @ret, the line into @line. */
static int system_yes_no(Parser *p, const char *key, const char *value, unsigned *line, bool *ret) {
        if (*line)
                return parser_error(p, p->line, "%s is set twice (first on line %u)", key, *line);
        if (streq(value, "yes") || streq(value, "1"))
                *ret = true;
        else if (streq(value, "no") || streq(value, "0"))
                *ret = false;
        else
                return parser_error(p, p->line, "%s: \"%s\" is not yes or no", key, value);
        *line = p->line;
        return 0;
}

static int system_key(Parser *p, const char *key, const char *value) {
        unsigned *line;
        cpu_set_t *set;
        bool yes = true;
        int r;

        /* autogroup: kernel.sched_autogroup_enabled of the described machine (demand-groups.c) */
        if (streq(key, "autogroup"))
                return system_yes_no(p, key, value, &p->autogroup_line, &p->topology->autogroup);
        /* delayed_dequeue: whether the described kernel delays a sleeper's dequeue (sched-features.c) */
        if (streq(key, "delayed_dequeue")) {
                r = system_yes_no(p, key, value, &p->delayed_dequeue_line, &yes);
                if (r >= 0)
                        p->topology->no_delayed_dequeue = !yes;
                return r;
        }
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

                if (!streq(key, topology_policy_keys[k].name))
                        continue;
                if (pp->key_line[k])
                        return parser_error(p, p->line, "%s is set twice (first on line %u)", key, pp->key_line[k]);

                r = topology_policy_keys[k].parse(p, &pp->desc, value);
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
