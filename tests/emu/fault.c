/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault.c: the fault rules of cpufreq-emu (the language is described in fault.h): parsing the commands a
 * test writes to .emu-faults, deciding whether an op fails, and listing the rules. Deterministic: a rule
 * with prob < 1 draws from its own xorshift64* generator, seeded by the command, so a run repeats exactly
 * whatever other rules and ops do. The FUSE glue (main.c) asks before each op; tree.c serves the file.
 */

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "macro.h"

/* fs/fuse/dev.c, fuse_dev_do_write(): a reply whose error is <= -512 (the kernel-internal ERESTART*
 * range) or positive is refused, so the writer would see an unrelated error. */
#define FAULT_ERRNO_MAX 511

/* Longer command lines are refused: the longest valid one is well below this. */
#define FAULT_COMMAND_MAX 512

#define BLANKS " \t\r"

static const char *const op_names[_FAULT_OP_MAX] = {
        [FAULT_OP_WRITE] = "write",
        [FAULT_OP_READ] = "read",
        [FAULT_OP_OPEN] = "open",
};

const char *fault_op_to_string(FaultOp op) {
        return op >= 0 && op < _FAULT_OP_MAX ? op_names[op] : NULL;
}

FaultOp fault_op_from_string(const char *s) {
        for (FaultOp op = 0; op < _FAULT_OP_MAX; op++)
                if (streq(s, op_names[op]))
                        return op;
        return _FAULT_OP_INVALID;
}

/* Plain decimal digits, at most @max: strtoull() would take blanks, a sign (and negate) and hex. */
static int parse_u64(const char *s, uint64_t max, uint64_t *ret) {
        uint64_t v = 0;

        if (!*s)
                return -EINVAL;
        for (; *s; s++) {
                uint64_t digit = (uint64_t) (*s - '0');

                if (*s < '0' || *s > '9')
                        return -EINVAL;
                if (v > (max - digit) / 10)
                        return -ERANGE;
                v = v * 10 + digit;
        }
        *ret = v;
        return 0;
}

int fault_errno_from_string(const char *s) {
        /* Names strerrorname_np() never returns: it gives the canonical one of each alias pair. */
        static const struct {
                const char *name;
                int error;
        } aliases[] = {
                { "EWOULDBLOCK", EWOULDBLOCK },
                { "EDEADLOCK", EDEADLOCK },
                { "ENOTSUP", ENOTSUP },
        };
        uint64_t v;

        if (parse_u64(s, FAULT_ERRNO_MAX, &v) >= 0)
                return v > 0 ? (int) v : -EINVAL;
        for (int e = 1; e <= FAULT_ERRNO_MAX; e++) {
                const char *name = strerrorname_np(e);

                if (name && streq(name, s))
                        return e;
        }
        for (size_t i = 0; i < ELEMENTSOF(aliases); i++)
                if (streq(aliases[i].name, s))
                        return aliases[i].error;
        return -EINVAL;
}

/* splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014): turns any seed,
 * 0 and 1 included, into a well-mixed xorshift state. */
static uint64_t rng_state_from_seed(uint64_t seed) {
        uint64_t x = seed + UINT64_C(0x9e3779b97f4a7c15);

        x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
        x ^= x >> 31;
        return x ?: 1; /* xorshift's one forbidden state */
}

/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators, scrambled", 2016),
 * its top 53 bits as a double in [0, 1). */
static double rng_next_unit(uint64_t *state) {
        uint64_t x = *state;

        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *state = x;
        return (double) ((x * UINT64_C(0x2545f4914f6cdd1d)) >> 11) * 0x1.0p-53;
}

/* ---- Parsing ---- */

typedef struct Why {
        char *buf;
        size_t size;
        unsigned line;
} Why;

/* Says why line @w->line is refused; returns @error. */
_printf_(3, 4)
static int refuse(Why *w, int error, const char *format, ...) {
        va_list ap;
        int n;

        if (w->size == 0)
                return error;
        n = snprintf(w->buf, w->size, "line %u: ", w->line);
        if (n < 0 || (size_t) n >= w->size)
                return error;
        va_start(ap, format);
        (void) vsnprintf(w->buf + n, w->size - (size_t) n, format, ap);
        va_end(ap);
        return error;
}

enum {
        OPTION_OP,
        OPTION_AFTER,
        OPTION_COUNT,
        OPTION_PROB,
        OPTION_SEED,
        _OPTION_MAX,
};

static const char *const option_names[_OPTION_MAX] = {
        [OPTION_OP] = "op",
        [OPTION_AFTER] = "after",
        [OPTION_COUNT] = "count",
        [OPTION_PROB] = "prob",
        [OPTION_SEED] = "seed",
};

static int option_from_key(const char *key, size_t len) {
        for (int i = 0; i < _OPTION_MAX; i++)
                if (strlen(option_names[i]) == len && strncmp(key, option_names[i], len) == 0)
                        return i;
        return -EINVAL;
}

static int parse_prob(const char *s, double *ret) {
        char *end;
        double p;

        errno = 0;
        p = strtod(s, &end);
        /* The comparisons are false for NaN. */
        if (errno != 0 || end == s || *end || !(p >= 0.0 && p <= 1.0))
                return -EINVAL;
        *ret = p;
        return 0;
}

static int parse_option_value(FaultRule *r, int option, const char *value) {
        uint64_t v;
        int op;

        switch (option) {
        case OPTION_OP:
                op = fault_op_from_string(value);
                if (op < 0)
                        return op;
                r->op = (FaultOp) op;
                return 0;
        case OPTION_AFTER:
                if (parse_u64(value, UINT32_MAX, &v) < 0)
                        return -EINVAL;
                r->after = (uint32_t) v;
                return 0;
        case OPTION_COUNT:
                if (streq(value, "inf")) {
                        r->count = 0;
                        return 0;
                }
                if (parse_u64(value, UINT32_MAX, &v) < 0 || v == 0)
                        return -EINVAL;
                r->count = (uint32_t) v;
                return 0;
        case OPTION_PROB:
                return parse_prob(value, &r->prob);
        case OPTION_SEED:
                return parse_u64(value, UINT64_MAX, &r->seed) < 0 ? -EINVAL : 0;
        default:
                return -EINVAL;
        }
}

static int parse_options(FaultRule *r, char **save, Why *w) {
        static const char *const expected[_OPTION_MAX] = {
                [OPTION_OP] = "write, read or open",
                [OPTION_AFTER] = "a number of ops",
                [OPTION_COUNT] = "a number of ops >= 1, or inf",
                [OPTION_PROB] = "a probability in [0, 1]",
                [OPTION_SEED] = "an unsigned 64-bit number",
        };
        unsigned given = 0;

        for (char *tok = strtok_r(NULL, BLANKS, save); tok; tok = strtok_r(NULL, BLANKS, save)) {
                const char *eq = strchr(tok, '=');
                int option;

                option = eq ? option_from_key(tok, (size_t) (eq - tok)) : -EINVAL;
                if (option < 0)
                        return refuse(w, -EINVAL, "unknown option '%s' (op=, after=, count=, prob=, seed=)", tok);
                if (given & (1u << option))
                        return refuse(w, -EINVAL, "%s= given twice", option_names[option]);
                given |= 1u << option;
                if (parse_option_value(r, option, eq + 1) < 0)
                        return refuse(w, -EINVAL, "%s: expected %s", tok, expected[option]);
        }
        return 0;
}

/* fail PATH ERRNO [options] */
static int apply_fail(FaultSet *s, char **save, Why *w) {
        FaultRule r = { .op = FAULT_OP_WRITE, .prob = 1.0, .seed = 1 };
        const char *path, *error;
        int e, k;

        path = strtok_r(NULL, BLANKS, save);
        error = path ? strtok_r(NULL, BLANKS, save) : NULL;
        if (!error)
                return refuse(w, -EINVAL, "usage: fail PATH ERRNO [op=write|read|open] [after=K] [count=N] "
                              "[prob=P] [seed=S]");
        if (path[0] == '/')
                return refuse(w, -EINVAL, "'%s': PATH is relative to the mount root (cpufreq/policy0/...)", path);
        if (strlen(path) >= sizeof(r.path))
                return refuse(w, -EINVAL, "PATH longer than %zu bytes", sizeof(r.path) - 1);
        strcpy(r.path, path);

        e = fault_errno_from_string(error);
        if (e < 0)
                return refuse(w, -EINVAL, "'%s': expected an errno name (EBUSY) or number 1..%d", error,
                              FAULT_ERRNO_MAX);
        r.error = e;

        k = parse_options(&r, save, w);
        if (k < 0)
                return k;
        /* fs/fuse/file.c, fuse_file_open(): ENOSYS from an open means "open not implemented", and the kernel
         * then skips the open of every file of this mount for good (fc->no_open). */
        if (r.op == FAULT_OP_OPEN && r.error == ENOSYS)
                return refuse(w, -EINVAL, "ENOSYS on open would turn the mount's opens off (fc->no_open)");
        if (s->n_rules >= FAULT_RULES_MAX)
                return refuse(w, -ENOSPC, "at most %d rules", FAULT_RULES_MAX);

        r.rng = rng_state_from_seed(r.seed);
        s->rules[s->n_rules++] = r;
        return 0;
}

/* clear [PATH] */
static int apply_clear(FaultSet *s, char **save, Why *w) {
        const char *path = strtok_r(NULL, BLANKS, save);
        size_t kept = 0;

        if (path && strtok_r(NULL, BLANKS, save))
                return refuse(w, -EINVAL, "usage: clear [PATH]");
        for (size_t i = 0; i < s->n_rules; i++)
                if (path && !streq(s->rules[i].path, path))
                        s->rules[kept++] = s->rules[i];
        s->n_rules = kept;
        return 0;
}

static int apply_line(FaultSet *s, char *line, Why *w) {
        char *save = NULL, *cmd;

        cmd = strtok_r(line, BLANKS, &save);
        if (!cmd || cmd[0] == '#')
                return 0;
        if (streq(cmd, "fail"))
                return apply_fail(s, &save, w);
        if (streq(cmd, "clear"))
                return apply_clear(s, &save, w);
        return refuse(w, -EINVAL, "unknown command '%s' (fail, clear)", cmd);
}

int fault_set_apply(FaultSet *s, const char *text, char *why, size_t why_size) {
        Why w = { .buf = why, .size = why_size };
        FaultSet copy = *s;

        if (why_size > 0)
                why[0] = '\0';

        /* Every line goes to the copy; only a write whose lines all pass replaces the rules. */
        for (const char *p = text; *p; ) {
                size_t len = strcspn(p, "\n");
                char line[FAULT_COMMAND_MAX];
                int r;

                w.line++;
                if (len >= sizeof(line))
                        return refuse(&w, -EINVAL, "longer than %zu bytes", sizeof(line) - 1);
                memcpy(line, p, len);
                line[len] = '\0';
                r = apply_line(&copy, line, &w);
                if (r < 0)
                        return r;
                p += len;
                p += *p == '\n';
        }

        *s = copy;
        return 0;
}

/* ---- Checking ---- */

bool fault_rule_spent(const FaultRule *r) {
        return r->count > 0 && r->hits >= r->count;
}

static bool rule_matches(const FaultRule *r, FaultOp op, const char *path) {
        return r->op == op && !fault_rule_spent(r) && fnmatch(r->path, path, FNM_PATHNAME) == 0;
}

int fault_set_check(FaultSet *s, FaultOp op, const char *path) {
        for (size_t i = 0; i < s->n_rules; i++) {
                FaultRule *r = &s->rules[i];

                if (!rule_matches(r, op, path))
                        continue;
                r->seen++;
                if (r->seen <= r->after)
                        continue;
                if (r->prob < 1.0 && !(rng_next_unit(&r->rng) < r->prob))
                        continue;
                r->hits++;
                return -r->error;
        }
        return 0;
}

/* ---- Listing ---- */

static int format_rule(const FaultRule *r, char *buf, size_t size) {
        char error[16], count[16];
        const char *name = strerrorname_np(r->error);

        if (!name) {
                (void) snprintf(error, sizeof(error), "%d", r->error);
                name = error;
        }
        if (r->count > 0)
                (void) snprintf(count, sizeof(count), "%" PRIu32, r->count);
        else
                strcpy(count, "inf");
        return snprintf(buf, size,
                        "fail %s %s op=%s after=%" PRIu32 " count=%s prob=%.9g seed=%" PRIu64 " seen=%" PRIu64
                        " hits=%" PRIu64 "%s\n",
                        r->path, name, fault_op_to_string(r->op), r->after, count, r->prob, r->seed, r->seen,
                        r->hits, fault_rule_spent(r) ? " spent" : "");
}

int fault_set_format(const FaultSet *s, char *buf, size_t size) {
        size_t len = 0;

        if (size == 0)
                return 0;
        buf[0] = '\0';
        for (size_t i = 0; i < s->n_rules; i++) {
                int n = format_rule(&s->rules[i], buf + len, size - len);

                if (n < 0)
                        return -EIO;
                if ((size_t) n >= size - len)
                        return (int) (size - 1); /* truncated: cannot happen within FAULT_LINE_MAX */
                len += (size_t) n;
        }
        return (int) len;
}
