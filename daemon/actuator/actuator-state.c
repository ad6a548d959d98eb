/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actuator-state.c: the state file's text (include/actuator.h: actuator_state_write(), actuator_state_parse()):
 * what the take-over saved of each policy, as an INI `schedfreqd restore` can read after a crash. Pure: FILE in,
 * FILE out; writing it to disk safely is actuator.c's.
 */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actuator.h"
#include "error-text.h"
#include "macro.h"
#include "string-util.h"
#include "topology.h"

/* CPUFREQ_NAME_LEN (include/linux/cpufreq.h): governor names are shorter. */
#define GOVERNOR_NAME_MAX 16

void actuator_saved_free_many(ActuatorSaved *s, size_t n) {
        for (size_t i = 0; s && i < n; i++)
                free(s[i].dir);
        free(s);
}

int actuator_state_write(FILE *f, const ActuatorSaved *s, size_t n) {
        fputs("# schedfreqd: cpufreq settings to put back (`schedfreqd restore`), written before taking over\n", f);
        for (size_t i = 0; i < n; i++) {
                fprintf(f,
                        "\n[policy%u]\n"
                        "dir = %s\n"
                        "governor = %s\n"
                        "scaling_min_khz = %u\n"
                        "scaling_max_khz = %u\n"
                        "setspeed_khz = %u\n",
                        s[i].id, s[i].dir, s[i].governor, s[i].scaling_min_khz, s[i].scaling_max_khz,
                        s[i].setspeed_khz);
                if (s[i].has_rate_limit)
                        fprintf(f, "rate_limit_us = %u\n", s[i].rate_limit_us);
        }
        return ferror(f) ? -EIO : 0;
}

typedef enum StateKey {
        STATE_KEY_DIR,
        STATE_KEY_GOVERNOR,
        STATE_KEY_MIN,
        STATE_KEY_MAX,
        STATE_KEY_SETSPEED,
        STATE_KEY_RATE_LIMIT,     /* optional */
        _STATE_KEY_MAX,
        _STATE_KEY_INVALID = -EINVAL,
} StateKey;

static const char *const state_key_names[_STATE_KEY_MAX] = {
        [STATE_KEY_DIR] = "dir",
        [STATE_KEY_GOVERNOR] = "governor",
        [STATE_KEY_MIN] = "scaling_min_khz",
        [STATE_KEY_MAX] = "scaling_max_khz",
        [STATE_KEY_SETSPEED] = "setspeed_khz",
        [STATE_KEY_RATE_LIMIT] = "rate_limit_us",
};

static StateKey state_key_from_string(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(state_key_names); i++)
                if (streq(s, state_key_names[i]))
                        return (StateKey) i;
        return _STATE_KEY_INVALID;
}

/* libcpupower verify_gov() (tools/power/cpupower/lib/cpufreq.c): letters, '-' and '_' only. */
static bool governor_name_valid(const char *s) {
        size_t len = strlen(s);

        if (len == 0 || len >= GOVERNOR_NAME_MAX)
                return false;
        for (; *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '-' || *s == '_'))
                        return false;
        return true;
}

/* The state file names the directories we write as root: only cpufreq directories under sysfs. */
static bool state_dir_valid(const char *s) {
        return strncmp(s, SYSFS_CPU_DIR "/", strlen(SYSFS_CPU_DIR "/")) == 0 && !strstr(s, "/..") &&
               strlen(s) < PATH_MAX - 32;
}

/* Sets one key of @s from @value; returns NULL or the reason it is invalid. @s is an element of the parser's
 * array, which actuator_saved_free_many() frees with its dir: gcc 12's analyzer loses it there (a leak it
 * reports of the strdup()). */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-malloc-leak")
static const char *state_set_key(ActuatorSaved *s, StateKey key, const char *value) {
        uint32_t *khz = NULL;

        switch (key) {
        case STATE_KEY_DIR:
                if (!state_dir_valid(value))
                        return "dir must be a directory under " SYSFS_CPU_DIR;
                free(s->dir);
                s->dir = strdup(value);
                return s->dir ? NULL : "out of memory";
        case STATE_KEY_GOVERNOR:
                if (!governor_name_valid(value))
                        return "invalid governor name";
                strcpy(s->governor, value);
                return NULL;
        case STATE_KEY_MIN:
                khz = &s->scaling_min_khz;
                break;
        case STATE_KEY_MAX:
                khz = &s->scaling_max_khz;
                break;
        case STATE_KEY_SETSPEED:
                khz = &s->setspeed_khz;
                break;
        case STATE_KEY_RATE_LIMIT:
                if (parse_u32_line(value, &s->rate_limit_us) < 0)
                        return "not a number of microseconds";
                s->has_rate_limit = true;
                return NULL;
        case _STATE_KEY_MAX:
        case _STATE_KEY_INVALID:
                return "unknown key";
        }
        return parse_u32_line(value, khz) < 0 ? "not a frequency in kHz" : NULL;
}
ANALYZER_FALSE_POSITIVE_END

typedef struct StateParser {
        const char *name;
        unsigned line;
        ActuatorSaved *s;
        size_t n;
        unsigned seen;            /* bit per StateKey of the current section */
        unsigned section_line;
        char *error;
} StateParser;

static void state_parser_done(StateParser *p) {
        actuator_saved_free_many(p->s, p->n);
        free(p->error);
}

_printf_(2, 3) static int state_error(StateParser *p, const char *fmt, ...) {
        _cleanup_free_ char *reason = NULL;
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(&reason, fmt, ap) < 0)
                reason = NULL;
        va_end(ap);
        return error_text_set(&p->error, -EINVAL, "%s:%u: %s", p->name, p->line, reason ? reason : "invalid");
}

static int state_section_end(StateParser *p) {
        const ActuatorSaved *s;

        if (p->n == 0)
                return 0;
        s = &p->s[p->n - 1];
        for (size_t k = 0; k < _STATE_KEY_MAX; k++)
                if (k != STATE_KEY_RATE_LIMIT && !(p->seen & (1u << k))) {
                        p->line = p->section_line;
                        return state_error(p, "[policy%u] lacks %s", s->id, state_key_names[k]);
                }
        if (s->scaling_min_khz > s->scaling_max_khz) {
                p->line = p->section_line;
                return state_error(p, "[policy%u] has scaling_min_khz > scaling_max_khz", s->id);
        }
        if (s->has_rate_limit && !streq(s->governor, "schedutil")) {
                p->line = p->section_line;
                return state_error(p, "[policy%u] has rate_limit_us but governor %s", s->id, s->governor);
        }
        return 0;
}

static int state_section_begin(StateParser *p, const char *text) {
        ActuatorSaved *s;
        uint32_t id;
        size_t len = strlen(text);
        char num[16];
        int r;

        r = state_section_end(p);
        if (r < 0)
                return r;
        if (len < 9 || strncmp(text, "[policy", 7) != 0 || text[len - 1] != ']' || len - 8 >= sizeof(num))
                return state_error(p, "expected a [policyN] section");
        memcpy(num, text + 7, len - 8);
        num[len - 8] = '\0';
        if (parse_u32_line(num, &id) < 0)
                return state_error(p, "expected a [policyN] section");
        for (size_t i = 0; i < p->n; i++)
                if (p->s[i].id == id)
                        return state_error(p, "[policy%u] appears twice", id);

        s = reallocarray(p->s, p->n + 1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        p->s = s;
        p->s[p->n++] = (ActuatorSaved) { .id = id };
        p->seen = 0;
        p->section_line = p->line;
        return 0;
}

static int state_parse_line(StateParser *p, char *text) {
        const char *reason;
        char *eq, *key, *value;
        StateKey k;

        text = strip(text);
        if (text[0] == '\0' || text[0] == '#' || text[0] == ';')
                return 0;
        if (text[0] == '[')
                return state_section_begin(p, text);
        if (p->n == 0)
                return state_error(p, "key outside a [policyN] section");
        eq = strchr(text, '=');
        if (!eq)
                return state_error(p, "expected key = value");
        *eq = '\0';
        key = strip(text);
        value = strip(eq + 1);
        k = state_key_from_string(key);
        if (k < 0)
                return state_error(p, "unknown key \"%s\"", key);
        if (p->seen & (1u << k))
                return state_error(p, "%s given twice", key);
        reason = state_set_key(&p->s[p->n - 1], k, value);
        if (reason)
                return state_error(p, "%s: %s", key, reason);
        p->seen |= 1u << k;
        return 0;
}

int actuator_state_parse(FILE *f, const char *name, ActuatorSaved **ret, size_t *ret_n, char **ret_error) {
        _cleanup_(state_parser_done) StateParser p = { .name = name };
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        int r;

        for (ssize_t len; (len = getline(&line, &cap, f)) >= 0;) {
                p.line++;
                /* We always write whole lines of text: anything else is damage, never something to act on. */
                if (strlen(line) != (size_t) len)
                        return error_text_return(state_error(&p, "NUL byte in the line"), &p.error, ret_error);
                if (line[len - 1] != '\n')
                        return error_text_return(state_error(&p, "last line not terminated (truncated file?)"),
                                            &p.error, ret_error);
                r = state_parse_line(&p, line);
                if (r < 0)
                        return error_text_return(r, &p.error, ret_error);
        }
        if (ferror(f))
                return error_text_return(error_text_set(&p.error, -EIO, "%s: read error", name), &p.error, ret_error);
        r = state_section_end(&p);
        if (r < 0)
                return error_text_return(r, &p.error, ret_error);
        /* A state file is written only when some policy is taken over: without one it is truncated or foreign. */
        if (p.n == 0) {
                p.line = MAX(p.line, 1u);
                return error_text_return(state_error(&p, "no [policyN] section (empty or truncated state file)"),
                                    &p.error, ret_error);
        }

        *ret = TAKE_PTR(p.s);
        *ret_n = p.n;
        p.n = 0;
        return 0;
}
