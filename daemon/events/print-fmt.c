/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print-fmt.c: the one thing the daemon reads from a print fmt, sched_switch's preempted bit, found in the text
 * itself. libtraceevent's print fmt parser crashes on some malformed input (docs/reliability.md, finding 3), and
 * the daemon needs only this: `REC->prev_state & MASK ? "+" : ""` (TASK_REPORT_MAX, every kernel so far prints
 * it: include/trace/events/sched.h, TP_printk of sched_switch), else one above the mask of
 * `REC->prev_state & MASK ? __print_flags(…) : "R"`. MASK is a constant expression of numbers, casts, `|`, `^`,
 * `&`, `+`, `-`, `<<`, `>>`, `~` and parentheses.
 *
 * A recursive-descent parser over the arguments as C expressions (the subset TP_printk produces), with values
 * that say only what matters: a constant, prev_state, prev_state masked by a constant, a string, or anything
 * else. Anything it cannot parse is a refusal, never a guess.
 */

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "macro.h"
#include "print-fmt.h"

#define DEPTH_MAX 64

typedef enum ValueKind {
        VALUE_OTHER,
        VALUE_CONST,              /* .n */
        VALUE_STATE,              /* REC->prev_state */
        VALUE_STATE_MASKED,       /* REC->prev_state & .n */
        VALUE_STRING,             /* .s, .len: the text between the quotes */
} ValueKind;

typedef struct Value {
        ValueKind kind;
        uint64_t n;
        const char *s;
        size_t len;
} Value;

typedef struct Parser {
        const char *p, *end;
        unsigned depth;
        bool failed;
        uint64_t plus_mask, r_mask;   /* 0: not found */
} Parser;

static void skip_space(Parser *ps) {
        while (ps->p < ps->end && isspace((unsigned char) *ps->p))
                ps->p++;
}

/* Consumes @tok if it comes next (an operator: not followed by a character that would make it another one). */
static bool accept(Parser *ps, const char *tok) {
        size_t n = strlen(tok);

        skip_space(ps);
        if ((size_t) (ps->end - ps->p) < n || memcmp(ps->p, tok, n) != 0)
                return false;
        if (n == 1 && ps->p + 1 < ps->end && strchr("&|<>", *tok) && ps->p[1] == *tok)
                return false; /* `&` is not `&&`, `<` is not `<<` */
        ps->p += n;
        return true;
}

static bool is_ident_char(char c) {
        return isalnum((unsigned char) c) || c == '_';
}

/* The identifier that comes next (not consumed), or 0. */
static size_t peek_ident(Parser *ps) {
        size_t n = 0;

        skip_space(ps);
        if (ps->p == ps->end || !(isalpha((unsigned char) *ps->p) || *ps->p == '_'))
                return 0;
        while (ps->p + n < ps->end && is_ident_char(ps->p[n]))
                n++;
        return n;
}

static bool ident_is(const Parser *ps, size_t n, const char *s) {
        return strlen(s) == n && memcmp(ps->p, s, n) == 0;
}

static Value fail(Parser *ps) {
        ps->failed = true;
        return (Value) {};
}

static Value parse_cond(Parser *ps);

static Value binary(Value l, const char *op, Value r) {
        if (l.kind == VALUE_CONST && r.kind == VALUE_CONST) {
                switch (op[0]) {
                case '|': return (Value) { VALUE_CONST, l.n | r.n };
                case '^': return (Value) { VALUE_CONST, l.n ^ r.n };
                case '&': return (Value) { VALUE_CONST, l.n & r.n };
                case '+': return (Value) { VALUE_CONST, l.n + r.n };
                case '-': return (Value) { VALUE_CONST, l.n - r.n };
                case '<': return r.n < 64 ? (Value) { VALUE_CONST, l.n << r.n } : (Value) {};
                case '>': return r.n < 64 ? (Value) { VALUE_CONST, l.n >> r.n } : (Value) {};
                }
        }
        if (op[0] == '&' && l.kind == VALUE_STATE && r.kind == VALUE_CONST)
                return (Value) { VALUE_STATE_MASKED, r.n };
        if (op[0] == '&' && l.kind == VALUE_CONST && r.kind == VALUE_STATE)
                return (Value) { VALUE_STATE_MASKED, l.n };
        return (Value) {};
}

static bool is_type_word(const Parser *ps, size_t n) {
        static const char *const words[] = { "unsigned", "signed", "long", "int", "short", "char", "u8", "u16",
                                             "u32", "u64", "s8", "s16", "s32", "s64", "bool" };

        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (ident_is(ps, n, words[i]))
                        return true;
        return false;
}

/* A comma-separated list up to @close (a call's arguments, a `{ … }` initializer): values do not matter. */
static void parse_list(Parser *ps, const char *close) {
        if (accept(ps, close))
                return;
        do
                (void) parse_cond(ps);
        while (!ps->failed && accept(ps, ","));
        if (!ps->failed && !accept(ps, close))
                ps->failed = true;
}

static Value parse_unary(Parser *ps);

static Value parse_primary(Parser *ps) {
        const char *start;
        size_t n;

        skip_space(ps);
        if (ps->p == ps->end)
                return fail(ps);
        if (*ps->p == '"') {
                start = ++ps->p;
                while (ps->p < ps->end && *ps->p != '"')
                        ps->p += *ps->p == '\\' && ps->p + 1 < ps->end ? 2 : 1;
                if (ps->p >= ps->end)
                        return fail(ps);
                ps->p++;
                return (Value) { .kind = VALUE_STRING, .s = start, .len = (size_t) (ps->p - 1 - start) };
        }
        if (isdigit((unsigned char) *ps->p)) {
                uint64_t v = 0;
                unsigned base = 10;

                if (ps->p + 1 < ps->end && ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X')) {
                        base = 16;
                        ps->p += 2;
                }
                for (; ps->p < ps->end && isxdigit((unsigned char) *ps->p); ps->p++) {
                        unsigned d = isdigit((unsigned char) *ps->p) ? (unsigned) (*ps->p - '0') :
                                                                       (unsigned) (tolower(*ps->p) - 'a' + 10);

                        if (d >= base)
                                return fail(ps);
                        v = v * base + d;
                }
                while (ps->p < ps->end && strchr("uUlL", *ps->p))
                        ps->p++;
                return (Value) { VALUE_CONST, v };
        }
        if (accept(ps, "(")) {
                n = peek_ident(ps);
                if (n > 0 && is_type_word(ps, n)) {
                        /* a cast: type words up to ')' then its operand */
                        while ((n = peek_ident(ps)) > 0 && is_type_word(ps, n))
                                ps->p += n;
                        if (!accept(ps, ")"))
                                return fail(ps);
                        return parse_unary(ps);
                }
                Value v = parse_cond(ps);
                return !ps->failed && accept(ps, ")") ? v : fail(ps);
        }
        if (accept(ps, "{")) {
                parse_list(ps, "}");
                return (Value) {};
        }
        n = peek_ident(ps);
        if (n == 0)
                return fail(ps);
        if (ident_is(ps, n, "REC")) {
                ps->p += n;
                if (!accept(ps, "->") || (n = peek_ident(ps)) == 0)
                        return fail(ps);
                bool state = ident_is(ps, n, "prev_state");
                ps->p += n;
                return (Value) { state ? VALUE_STATE : VALUE_OTHER };
        }
        ps->p += n;
        if (accept(ps, "("))              /* a helper call: __print_flags(…), __get_str(…), … */
                parse_list(ps, ")");
        return (Value) {};
}

static Value parse_unary(Parser *ps) {
        Value v;

        if (++ps->depth > DEPTH_MAX)
                return fail(ps);
        if (accept(ps, "-")) {
                v = parse_unary(ps);
                v = v.kind == VALUE_CONST ? (Value) { VALUE_CONST, -v.n } : (Value) {};
        } else if (accept(ps, "~")) {
                v = parse_unary(ps);
                v = v.kind == VALUE_CONST ? (Value) { VALUE_CONST, ~v.n } : (Value) {};
        } else if (accept(ps, "!")) {
                v = parse_unary(ps);
                v = v.kind == VALUE_CONST ? (Value) { VALUE_CONST, !v.n } : (Value) {};
        } else
                v = parse_primary(ps);
        ps->depth--;
        return v;
}

/* Binary operators by C precedence, loosest first (only those TP_printk masks use). */
static const char *const levels[][2] = {
        { "|", NULL }, { "^", NULL }, { "&", NULL }, { "<<", ">>" }, { "+", "-" },
};

static Value parse_binary(Parser *ps, size_t level) {
        Value l;

        if (level == ELEMENTSOF(levels))
                return parse_unary(ps);
        l = parse_binary(ps, level + 1);
        for (;;) {
                const char *op = NULL;

                if (ps->failed)
                        return l;
                for (size_t i = 0; i < 2 && !op; i++)
                        if (levels[level][i] && accept(ps, levels[level][i]))
                                op = levels[level][i];
                if (!op)
                        return l;
                l = binary(l, op, parse_binary(ps, level + 1));
        }
}

static bool string_is(Value v, const char *s) {
        return v.kind == VALUE_STRING && v.len == strlen(s) && memcmp(v.s, s, v.len) == 0;
}

/* `C ? A : B`, where the state tests are recognised. */
static Value parse_cond(Parser *ps) {
        Value c, a, b;

        if (++ps->depth > DEPTH_MAX)
                return fail(ps);
        c = parse_binary(ps, 0);
        if (!ps->failed && accept(ps, "?")) {
                a = parse_cond(ps);
                if (ps->failed || !accept(ps, ":"))
                        return fail(ps);
                b = parse_cond(ps);
                if (c.kind == VALUE_STATE_MASKED && string_is(a, "+") && ps->plus_mask == 0)
                        ps->plus_mask = c.n;
                if (c.kind == VALUE_STATE_MASKED && string_is(b, "R") && ps->r_mask == 0)
                        ps->r_mask = c.n;
                c = (Value) {};
        }
        ps->depth--;
        return c;
}

int print_fmt_preempt_mask(const char *fmt, size_t size, uint64_t *ret) {
        Parser ps = { .p = fmt, .end = fmt + size };
        uint64_t mask;
        Value first;

        /* The format string, then its arguments. */
        first = parse_primary(&ps);
        if (ps.failed || first.kind != VALUE_STRING)
                return -EINVAL;
        while (!ps.failed && accept(&ps, ","))
                (void) parse_cond(&ps);
        skip_space(&ps);
        if (ps.failed || ps.p != ps.end)
                return -EINVAL;

        if (ps.plus_mask != 0)
                mask = ps.plus_mask;
        else if (ps.r_mask != 0 && ps.r_mask != UINT64_MAX)
                mask = ps.r_mask + 1;
        else
                return -ENOENT;
        if ((mask & (mask - 1)) != 0)
                return -EDOM;
        *ret = mask;
        return 0;
}
