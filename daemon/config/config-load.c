/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config-load.c: /etc/schedfreqd.conf and its drop-ins. Defaults, and an inih handler that walks the key table
 * (config-keys.c), collecting "FILE:LINE: reason" errors (config-errors.c). Nothing is logged: every problem
 * becomes one line of the error text and the whole load is rejected, so a reload with a bad file keeps the
 * running config. The loaded config against the machine's policies: config-check.c.
 *
 * inih (libinih 55, as packaged) is built without INI_HANDLER_LINENO, so lines are counted here: files are
 * read into memory and served to ini_parse_stream() one line at a time, and the handler reports the line
 * that was served last. inih reports only the first syntax error of a stream; to report them all, a syntax
 * pre-pass re-parses with known bad lines blanked until none is left (files are small). Files are read
 * with our own line reader (inih's fgets() would cut a line at a NUL byte without a word), 1 MiB at most.
 *
 * The file and line of policies= and of each [policyN] section are kept in the Config, so that
 * config_check_topology() can name them when it finds policies the machine does not have.
 *
 * [rule:NAME] sections (daemon/config/config-rules.c knows their keys) are matched by NAME across files, so a drop-in
 * can change a rule key by key; a rule is judged as a whole once every file is read, at its last header.
 * inih cuts section names at 49 bytes, so the reader keeps the full name of the header it serves.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc-util.h"
#include "config.h"
#include "config-errors.h"
#include "config-keys.h"
#include "config-rules.h"
#include "log.h"
#include "macro.h"
#include "string-table.h"
#include "topology.h"

#define DROPIN_SUFFIX ".conf"
#define UTF8_BOM "\xef\xbb\xbf"

static bool startswith_bom(const char *s) {
        return strncmp(s, UTF8_BOM, strlen(UTF8_BOM)) == 0;
}

/* ---- enums ---- */

static const char *const wakeup_mode_table[_WAKEUP_MODE_MAX] = {
        [WAKEUP_MODE_ADAPTIVE] = "adaptive",
        [WAKEUP_MODE_WATERMARK] = "watermark",
        [WAKEUP_MODE_IMMEDIATE] = "immediate",
};

static const char *const remote_mode_table[_REMOTE_MODE_MAX] = {
        [REMOTE_MODE_AUTO] = "auto",
        [REMOTE_MODE_YES] = "yes",
        [REMOTE_MODE_NO] = "no",
};

static const char *const event_source_type_table[_EVENT_SOURCE_TYPE_MAX] = {
        [EVENT_SOURCE_AUTO] = "auto",
        [EVENT_SOURCE_PERF] = "perf",
        [EVENT_SOURCE_BPF] = "bpf",
};

DEFINE_STRING_TABLE_LOOKUP(wakeup_mode, WakeupMode);
DEFINE_STRING_TABLE_LOOKUP(event_source_type, EventSourceType);
DEFINE_STRING_TABLE_LOOKUP(remote_mode, RemoteMode);

/* ---- defaults and queries ---- */

void config_set_defaults(Config *c) {
        *c = (Config) {
                .log_level = LOG_INFO,
                .realtime_priority = 1,            /* just above every SCHED_OTHER task (see conf/schedfreqd.conf) */
                .drain_interval_usec = 4 * 1000,
                .ring_pages = 64,
                .event_source = EVENT_SOURCE_AUTO,
                .wakeup = WAKEUP_MODE_ADAPTIVE,
                .adaptive_high_per_sec = 20000,
                .headroom_x1024 = CONFIG_HEADROOM_DEFAULT_X1024,
                .rate_limit_usec = 0,              /* auto: from cpuinfo_transition_latency */
                .tick_usec = 0,                    /* auto: the kernel's CONFIG_HZ (config_tick_ns()) */
                .manage_all = true,
                .remote = REMOTE_MODE_AUTO,
                .rules.n = 0,                      /* no [rule:NAME] */
        };
        CPU_ZERO(&c->manage);
        /* A [policyN] section without remote= follows [governor] remote=, whatever order they come in. */
        for (size_t i = 0; i < ELEMENTSOF(c->policy); i++)
                c->policy[i] = (PolicyConfig) { .present = false, .remote = _REMOTE_MODE_INVALID };
}

uint64_t config_tick_ns(const Config *c) {
        return (c->tick_usec > 0 ? c->tick_usec : CONFIG_TICK_DEFAULT_USEC) * 1000;
}

RemoteMode config_policy_remote(const Config *c, unsigned id) {
        if (id < CONFIG_POLICIES_MAX && c->policy[id].present && c->policy[id].remote >= 0)
                return c->policy[id].remote;
        return c->remote;
}

bool config_manages_policy(const Config *c, unsigned id) {
        if (c->manage_all)
                return true;
        return id < CONFIG_POLICIES_MAX && CPU_ISSET(id, &c->manage);
}

/* ---- one file, served to inih line by line ---- */

typedef struct ParseState {
        const char *file;
        char **lines;             /* as read, newline included */
        size_t n_lines;
        bool *blank;              /* served as empty lines: syntax errors found so far, over-long lines, NULs */
        size_t next;              /* index of the next line to serve; so the line served last is 'next' (1-based) */
        unsigned section_line;    /* line of the last "[section]" header served */
        unsigned reported_section_line; /* a bad section is reported once, at its header */
        bool keys_pass;           /* the pass that calls config_handler() (not the syntax pre-pass) */
        char section[INI_MAX_LINE]; /* keys pass: the name of that header, uncut */
        Config *config;
        ConfigErrors *errors;
} ParseState;

static void parse_state_done(ParseState *st) {
        for (size_t i = 0; i < st->n_lines; i++)
                free(st->lines[i]);
        free(st->lines);
        free(st->blank);
}

/*
 * The largest file read. The shipped schedfreqd.conf is about 5 KiB and inih takes lines of 198 characters at
 * most; the cap keeps /dev/zero, a binary or a runaway generator from growing memory without bound.
 */
#define CONFIG_FILE_MAX (1024 * 1024)

/*
 * One line, its '\n' included, as a malloc'd string in *@ret and its length in bytes (NUL bytes included) in
 * *@ret_len. Returns 1, 0 at the end of the input, -EFBIG once more than *@budget bytes were read in all,
 * or the read error (EISDIR, EIO, ...).
 */
static int read_line(FILE *f, size_t *budget, char **ret, size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        size_t n = 0, allocated = 0;
        char *b;
        int c;

        while ((c = getc(f)) != EOF) {
                if (*budget == 0)
                        return -EFBIG;
                (*budget)--;
                /* This byte and the NUL. */
                b = greedy_realloc(buf, &allocated, n + 2, 1, 128);
                if (!b)
                        return -ENOMEM;
                buf = b;
                buf[n++] = (char) c;
                if (c == '\n')
                        break;
        }
        if (ferror(f))
                return errno > 0 ? -errno : -EIO;
        if (n == 0)
                return 0;

        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_len = n;
        return 1;
}

/* An empty file has no line, but the reader still indexes blank[]. */
static int parse_state_blank_alloc(ParseState *st) {
        if (!st->blank)
                st->blank = calloc(1, sizeof(bool));
        return st->blank ? 0 : -ENOMEM;
}

/* analyze: false positive: read_line() sets *ret and *ret_len whenever it returns 1; gcc 12 can't tell that
 * its "errno > 0 ? -errno : -EIO" is < 0, so it follows a read error as a line */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
static int parse_state_read(ParseState *st, FILE *f) {
        size_t allocated = 0, budget = CONFIG_FILE_MAX;

        for (;;) {
                char *line;
                size_t n;
                int r;

                r = read_line(f, &budget, &line, &n);
                if (r <= 0)
                        return r < 0 ? r : parse_state_blank_alloc(st);

                if (st->n_lines == allocated) {
                        char **lines;
                        bool *blank;

                        allocated = MAX(allocated * 2, (size_t) 64);
                        lines = reallocarray(st->lines, allocated, sizeof(char *));
                        blank = lines ? reallocarray(st->blank, allocated, sizeof(bool)) : NULL;
                        if (lines)
                                st->lines = lines;
                        if (blank)
                                st->blank = blank;
                        if (!lines || !blank) {
                                free(line);
                                return -ENOMEM;
                        }
                }
                /* inih reads C strings: a NUL byte would cut the line there without a word. */
                st->blank[st->n_lines] = n != strlen(line);
                if (st->blank[st->n_lines])
                        config_error_add(st->errors, (unsigned) st->n_lines + 1, "%s:%zu: NUL byte in line", st->file,
                                  st->n_lines + 1);
                st->lines[st->n_lines++] = line;
        }
}
ANALYZER_FALSE_POSITIVE_END

static unsigned parse_state_lineno(const ParseState *st) {
        return (unsigned) st->next;
}

static void parse_state_rewind(ParseState *st) {
        st->next = 0;
        st->section_line = 0;
        st->reported_section_line = UINT_MAX;
}

static bool is_section_header(const char *line) {
        if (startswith_bom(line))
                line += strlen(UTF8_BOM); /* inih skips it on the first line */
        return line[strspn(line, " \t")] == '[';
}

static void section_served(ParseState *st, const char *line);

/* An ini_reader: fgets() over the lines in memory. */
static char *parse_state_reader(char *str, int num, void *stream) {
        ParseState *st = stream;
        const char *line;
        size_t i;

        if (st->next >= st->n_lines)
                return NULL;
        i = st->next++;

        line = st->lines[i];
        if (!st->blank[i] && strlen(line) >= (size_t) num) {
                /* inih would cut it into pieces and parse each: refuse it whole instead. */
                config_error_add(st->errors, (unsigned) i + 1, "%s:%zu: line too long (more than %d characters)", st->file,
                          i + 1, num - 2);
                st->blank[i] = true;
        }
        if (st->blank[i])
                line = "\n";

        if (is_section_header(line)) {
                st->section_line = (unsigned) i + 1;
                if (st->keys_pass)
                        section_served(st, line);
        }

        strcpy(str, line); /* fits: longer lines were blanked above */
        return str;
}

static bool report_section_once(ParseState *st) {
        if (st->reported_section_line == st->section_line)
                return false;
        st->reported_section_line = st->section_line;
        return true;
}

/* The table row for @section/@key and the struct it writes into; NULL after reporting why there is none. */
static const ConfigItem *handler_lookup(ParseState *st, const char *section, const char *key, void **ret_base) {
        unsigned line = parse_state_lineno(st);
        const ConfigItem *item;
        int id;

        if (section[0] == '\0') {
                config_error_add(st->errors, line, "%s:%u: '%s' outside of any [section]", st->file, line, key);
                return NULL;
        }

        id = config_policy_section_id(section);
        if (id == -ERANGE) {
                if (report_section_once(st))
                        config_error_add(st->errors, st->section_line,
                                  "%s:%u: invalid section [%s]: expected [policyN] with N in 0..%d", st->file,
                                  st->section_line, section, CONFIG_POLICIES_MAX - 1);
                return NULL;
        }
        if (id < 0 && !config_section_known(section)) {
                const char *known = config_section_suggest(section);

                if (report_section_once(st))
                        config_error_add(st->errors, st->section_line, "%s:%u: unknown section [%s]%s%s%s", st->file,
                                  st->section_line, section, known ? "; did you mean [" : "", known ?: "",
                                  known ? "]?" : "");
                return NULL;
        }

        item = config_item_find(id >= 0 ? POLICY_SECTION : section, key);
        if (!item) {
                const char *known_key, *known_section;

                /* As systemd's "Did you mean ...?": the usual unknown key is a typo, or a key in the wrong section. */
                config_key_suggest(id >= 0 ? POLICY_SECTION : section, key, &known_key, &known_section);
                if (known_key)
                        config_error_add(st->errors, line,
                                  "%s:%u: unknown key '%s' in section [%s]; did you mean '%s'?", st->file, line, key,
                                  section, known_key);
                else if (known_section)
                        config_error_add(st->errors, line,
                                  "%s:%u: unknown key '%s' in section [%s]; it belongs in [%s%s]", st->file, line, key,
                                  section, known_section, streq(known_section, POLICY_SECTION) ? "N" : "");
                else
                        config_error_add(st->errors, line, "%s:%u: unknown key '%s' in section [%s]", st->file, line,
                                  key, section);
                return NULL;
        }

        *ret_base = id >= 0 ? (void *) &st->config->policy[id] : (void *) st->config;
        return item;
}

/* Keeps @file's name in @c (once) and returns its offset; UINT32_MAX when there is no room left. */
static uint32_t config_origin_intern(Config *c, const char *file) {
        size_t n = strlen(file) + 1;

        for (size_t at = 0; at < c->origin_files_used; at += strlen(c->origin_files + at) + 1)
                if (streq(c->origin_files + at, file))
                        return (uint32_t) at;
        if (n > sizeof(c->origin_files) - c->origin_files_used)
                return UINT32_MAX;

        memcpy(c->origin_files + c->origin_files_used, file, n);
        c->origin_files_used += n;
        return (uint32_t) (c->origin_files_used - n);
}

/* Remembers where the settings that config_check_topology() looks at were read: a [policyN] section by its
 * header, policies= by its own line. */
static void config_note_origin(ParseState *st, const ConfigItem *item, void *base) {
        ConfigOrigin *o;
        unsigned line;

        if (streq(item->section, POLICY_SECTION)) {
                o = &((PolicyConfig *) base)->origin;
                line = st->section_line;
        } else if (streq(item->key, "policies")) { /* [governor] policies= */
                o = &st->config->manage_origin;
                line = parse_state_lineno(st);
        } else
                return;

        *o = (ConfigOrigin) { .file = config_origin_intern(st->config, st->file), .line = line };
}

/* ---- [rule:NAME] sections ---- */

/*
 * The rule of the "rule:NAME" @section, or -1 after reporting why there is none (once per header). Its origin
 * becomes the header served last when it is new or when @at_header (the reader is serving that header).
 */
static int rule_section_index(ParseState *st, const char *section, bool at_header) {
        const char *name = rule_section_name(section);
        unsigned n = st->config->rules.n;
        int index;

        if (!rule_name_valid(name)) {
                if (report_section_once(st))
                        config_error_add(st->errors, st->section_line, "%s:%u: invalid section [%s]: expected [rule:NAME] "
                                  "with a NAME of 1 to %d letters, digits, '_', '.' or '-'", st->file,
                                  st->section_line, section, RULE_NAME_MAX - 1);
                return -1;
        }
        index = rule_set_find_or_add(&st->config->rules, name);
        if (index < 0) {
                if (report_section_once(st))
                        config_error_add(st->errors, st->section_line, "%s:%u: [%s]: more than %d rules", st->file,
                                  st->section_line, section, RULES_MAX);
                return -1;
        }
        if (at_header || st->config->rules.n > n)
                st->config->rules.rule[index].origin = (ConfigOrigin) {
                        .file = config_origin_intern(st->config, st->file),
                        .line = st->section_line,
                };
        return index;
}

/*
 * A header line was served (keys pass): keep its section name whole and, for a rule, register it now, so that
 * a section without keys is a rule too (and judged: it has no match key), and its origin is this header.
 */
static void section_served(ParseState *st, const char *line) {
        const char *start = line, *end;

        if (startswith_bom(start))
                start += strlen(UTF8_BOM);
        while (isspace((unsigned char) *start))
                start++;
        /* As inih: the name runs to the first ']' (a header without one is a syntax error, blanked by now). */
        end = strchr(++start, ']');
        if (!end) {
                st->section[0] = '\0';
                return;
        }
        snprintf(st->section, sizeof(st->section), "%.*s", (int) (end - start), start);

        if (rule_section_name(st->section))
                (void) rule_section_index(st, st->section, true);
}

/* inih's MAX_SECTION (ini.c): it hands the handler a section name cut to this many bytes less one. */
#define INIH_SECTION_MAX 50

static int rule_handler(ParseState *st, const char *section, const char *key, const char *value) {
        const char *reason = NULL;
        unsigned line = parse_state_lineno(st);
        int index;

        /* The whole name of a long section: inih's is a cut copy of the header served last. */
        if (strlen(section) == INIH_SECTION_MAX - 1 && strncmp(st->section, section, strlen(section)) == 0)
                section = st->section;

        index = rule_section_index(st, section, false);
        if (index < 0)
                return 0;

        switch (rule_set_key(&st->config->rules.rule[index], key, value, &reason)) {
        case 0:
                return 1;
        case -ENOENT: {
                const char *known = rule_key_suggest(key);

                config_error_add(st->errors, line,
                          "%s:%u: unknown key '%s' in section [%s] (valid keys: %s)%s%s%s", st->file, line,
                          key, section, rule_keys_text(), known ? "; did you mean '" : "", known ?: "", known ? "'?" : "");
                break;
        }
        default:
                config_error_add(st->errors, line, "%s:%u: %s=%s: %s", st->file, line, key, value, reason ?: "invalid value");
                break;
        }
        st->errors->bad_rules |= UINT32_C(1) << index;
        return 0;
}

static int rule_origin_cmp(const void *a, const void *b) {
        const Rule *x = *(const Rule *const *) a, *y = *(const Rule *const *) b;

        if (x->origin.file != y->origin.file)
                return x->origin.file < y->origin.file ? -1 : 1;
        return x->origin.line < y->origin.line ? -1 : x->origin.line > y->origin.line;
}

/* Judges each rule as a whole, once every file is read: its problems at its last header, in load order. */
static void config_check_rules(const Config *c, ConfigErrors *errors) {
        const Rule *rules[RULES_MAX];
        size_t n = 0;

        for (unsigned i = 0; i < c->rules.n; i++)
                if (!(errors->bad_rules & (UINT32_C(1) << i)))
                        rules[n++] = &c->rules.rule[i];
        if (n > 1)
                qsort(rules, n, sizeof(rules[0]), rule_origin_cmp);

        for (size_t i = 0; i < n; i++) {
                const Rule *r = rules[i];
                const char *file = config_origin_file(c, r->origin);
                unsigned p = rule_problems(r), line = r->origin.line;
                char all[160], exclusive[64], others[160];

                config_errors_set_file(errors, file);
                if (p & RULE_PROBLEM_NO_MATCH_KEY)
                        config_error_add(errors, 0, "%s:%u: rule '%s' has no match key (comm=, exe= or cgroup=)", file,
                                  line, r->name);
                if (p & RULE_PROBLEM_NO_ACTION)
                        config_error_add(errors, 0, "%s:%u: rule '%s' has no action (%s)", file, line, r->name,
                                  rule_actions_text(all, sizeof(all), RULE_ACTIONS_ALL, true, " or "));
                if (p & RULE_PROBLEM_IGNORE_AND_MORE)
                        config_error_add(errors, 0, "%s:%u: rule '%s': %s excludes the other actions (%s)", file,
                                  line, r->name,
                                  rule_actions_text(exclusive, sizeof(exclusive), RULE_ACTIONS_EXCLUSIVE, true, " or "),
                                  rule_actions_text(others, sizeof(others), RULE_ACTIONS_OTHERS, false, ", "));
                if (p & RULE_PROBLEM_MIN_ABOVE_MAX)
                        config_error_add(errors, 0, "%s:%u: rule '%s': min_util=%u is above max_util=%u", file, line,
                                  r->name, r->action[RULE_ACTION_MIN_UTIL], r->action[RULE_ACTION_MAX_UTIL]);
        }
}

static int config_handler(void *user, const char *section, const char *key, const char *value) {
        ParseState *st = user;
        const ConfigItem *item;
        const char *reason = NULL;
        unsigned line;
        void *base;

        if (rule_section_name(section))
                return rule_handler(st, section, key, value);

        item = handler_lookup(st, section, key, &base);
        if (!item)
                return 0;

        if (item->parse(value, (uint8_t *) base + item->offset, &reason) < 0) {
                line = parse_state_lineno(st);
                config_error_add(st->errors, line, "%s:%u: %s=%s: %s", st->file, line, key, value,
                          reason ?: "invalid value");
                return 0;
        }
        if (streq(item->section, POLICY_SECTION))
                ((PolicyConfig *) base)->present = true;
        config_note_origin(st, item, base);
        return 1;
}

static int syntax_handler(void *user, const char *section, const char *key, const char *value) {
        return 1;
}

/*
 * inih reports only the first bad line of a pass, so each one costs a pass over the file: past this many, the
 * rest are summed up in one message (without the cap a 1 MiB file of bad lines takes hours: quadratic,
 * tests/fuzz/corpus/config/slow-quadratic-8000-bad-lines).
 */
#define SYNTAX_ERRORS_MAX 20

/* Finds every line inih rejects, reports it and blanks it for the next passes. */

static int config_find_syntax_errors(ParseState *st) {
        for (unsigned found = 0;; found++) {
                unsigned line;
                int r;

                parse_state_rewind(st);
                r = ini_parse_stream(parse_state_reader, st, syntax_handler, NULL);
                if (r == 0)
                        return 0;
                if (r == -2)
                        return -ENOMEM;
                if (r < 0 || (size_t) r > st->n_lines || st->blank[r - 1])
                        return -EIO; /* can't happen: a blank line is never an error */

                line = (unsigned) r;
                if (found == SYNTAX_ERRORS_MAX) {
                        config_error_add(st->errors, line, "%s:%u: more lines that are not 'key = value', '[section]' or a "
                                  "comment from here on (only the first %u are listed)", st->file, line,
                                  SYNTAX_ERRORS_MAX);
                        return 0;
                }
                if (is_section_header(st->lines[line - 1]))
                        config_error_add(st->errors, line, "%s:%u: section header without ']'", st->file, line);
                else
                        config_error_add(st->errors, line, "%s:%u: expected 'key = value', '[section]' or a comment",
                                  st->file, line);
                st->blank[line - 1] = true;
        }
}

/* Parses @f (named @file in messages) into @c; problems are added to @errors. */
static int config_parse_file(FILE *f, const char *file, Config *c, ConfigErrors *errors) {
        _cleanup_(parse_state_done) ParseState st = {
                .file = file,
                .config = c,
                .errors = errors,
        };
        int r;

        config_errors_set_file(errors, file);
        r = parse_state_read(&st, f);
        if (r < 0)
                return r;

        r = config_find_syntax_errors(&st);
        if (r < 0)
                return r;

        parse_state_rewind(&st);
        st.keys_pass = true;
        r = ini_parse_stream(parse_state_reader, &st, config_handler, &st);
        if (r == -2)
                return -ENOMEM;

        return 0;
}

/* Loads @path: -ENOENT when it does not exist, another negative errno when it can't be read. */
static int config_load_file(const char *path, Config *c, ConfigErrors *errors) {
        _cleanup_fclose_ FILE *f = NULL;

        f = fopen(path, "re");
        if (!f)
                return -errno;
        return config_parse_file(f, path, c, errors);
}

/* ---- drop-ins ---- */

static void closedirp(DIR **d) {
        if (*d)
                (void) closedir(*d);
}

typedef struct NameList {
        char **names;
        size_t n, allocated;
} NameList;

static void name_list_done(NameList *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->names[i]);
        free(l->names);
        *l = (NameList) {};
}

/* analyze: false positive: the copy is owned by l->names[] (freed by name_list_done()); gcc 12 loses track
 * of a pointer stored into an element of a reallocated array */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-malloc-leak")
static int name_list_add(NameList *l, const char *name) {
        char **names = greedy_realloc(l->names, &l->allocated, l->n + 1, sizeof(char *), 8);

        if (!names)
                return -ENOMEM;
        l->names = names;
        l->names[l->n] = strdup(name);
        if (!l->names[l->n])
                return -ENOMEM;
        l->n++;
        return 0;
}
ANALYZER_FALSE_POSITIVE_END

static int strcmp_ptr(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool dropin_name(const char *name) {
        size_t n = strlen(name), suffix = strlen(DROPIN_SUFFIX);

        return name[0] != '.' && n > suffix && streq(name + n - suffix, DROPIN_SUFFIX);
}

/* The *.conf names in @dir in bytewise order (not the locale's); an absent directory has none. */
static int dropins_list(const char *dir, NameList *ret) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int r;

        d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;

        while ((errno = 0, de = readdir(d))) {
                if (!dropin_name(de->d_name))
                        continue;
                r = name_list_add(ret, de->d_name);
                if (r < 0)
                        return r;
        }
        if (errno != 0)
                return -errno;

        if (ret->n > 0)
                qsort(ret->names, ret->n, sizeof(char *), strcmp_ptr);
        return 0;
}

/* Sets *ret_error to "PATH: strerror" for an I/O failure, passes @r through. */
static int config_io_error(const char *path, int r, char **ret_error) {
        if (ret_error && r != -ENOMEM && asprintf(ret_error, "%s: %s", path, strerror(-r)) < 0)
                *ret_error = NULL;
        return r;
}

static int config_load_dropins(const char *path, Config *c, ConfigErrors *errors, char **ret_error) {
        _cleanup_(name_list_done) NameList names = {};
        _cleanup_free_ char *dir = NULL;
        int r;

        if (asprintf(&dir, "%s.d", path) < 0)
                return -ENOMEM;

        r = dropins_list(dir, &names);
        if (r < 0)
                return config_io_error(dir, r, ret_error);

        for (size_t i = 0; i < names.n; i++) {
                _cleanup_free_ char *file = NULL;
                struct stat st;

                if (asprintf(&file, "%s/%s", dir, names.names[i]) < 0)
                        return -ENOMEM;
                /* Only regular files (or links to them): a directory named x.conf is not a drop-in. */
                if (stat(file, &st) < 0 || !S_ISREG(st.st_mode))
                        continue;

                r = config_load_file(file, c, errors);
                if (r == -ENOENT)
                        continue; /* removed since the listing */
                if (r < 0)
                        return config_io_error(file, r, ret_error);
        }
        return 0;
}

int config_load(const char *path, bool missing_ok, Config *ret, char **ret_error) {
        _cleanup_(config_errors_done) ConfigErrors errors = {};
        Config c;
        int r;

        if (!path || !ret)
                return -EINVAL;

        config_set_defaults(&c);

        r = config_load_file(path, &c, &errors);
        if (r < 0 && !(r == -ENOENT && missing_ok))
                return config_io_error(path, r, ret_error);

        r = config_load_dropins(path, &c, &errors, ret_error);
        if (r < 0)
                return r;
        config_check_rules(&c, &errors);
        if (errors.oom)
                return -ENOMEM;
        config_errors_sort(&errors);

        if (errors.n > 0) {
                if (ret_error) {
                        *ret_error = config_errors_join(&errors);
                        if (!*ret_error)
                                return -ENOMEM;
                }
                return -EINVAL;
        }

        *ret = c;
        return 0;
}
