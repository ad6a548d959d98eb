/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-parse.c: one line of a text trace → SchedEvent (include/events.h). Pure; it knows two line layouts,
 * `perf script`'s and ftrace's (the tracefs `trace` file, `trace-cmd report`, Android's systrace text), the
 * sched tracepoints' print formats (include/trace/events/sched.h TP_printk, of current and of old kernels) and
 * power:cpu_frequency's (include/trace/events/power.h), the forms libtraceevent's sched_switch plugin prints
 * instead for sched_switch and sched_wakeup* (what `trace-cmd report` shows), in both the µs and ns timestamp
 * styles. The key=value fields are found by trace-fields.c.
 */

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "macro.h"
#include "time-util.h"
#include "trace-fields.h"

/* Parses "<sec>.<frac>" where frac has 6 (µs) or 9 (ns) digits. Returns the end pointer or NULL. */
static const char *parse_time(const char *p, uint64_t *ret_ns) {
        uint64_t sec = 0, frac = 0;
        int digits = 0;

        if (!isdigit((unsigned char) *p))
                return NULL;
        for (; isdigit((unsigned char) *p); p++) {
                if (sec > (UINT64_MAX - 9) / 10)
                        return NULL;
                sec = sec * 10 + (uint64_t) (*p - '0');
        }
        if (*p++ != '.')
                return NULL;
        for (; isdigit((unsigned char) *p); p++, digits++)
                if (digits < 9)
                        frac = frac * 10 + (uint64_t) (*p - '0');
        if (digits != 6 && digits != 9)
                return NULL;
        if (digits == 6)
                frac *= 1000;
        if (sec > UINT64_MAX / NSEC_PER_SEC - 1)
                return NULL;
        *ret_ns = sec * NSEC_PER_SEC + frac;
        return p;
}

/*
 * The task that was current when the event was recorded: the number (the tid of "pid/tid") before " [CPU]".
 * perf script prints it by default; a trace without it has no context (SchedEvent.has_context).
 */
/* The pid in the digits just before @end (at most 10 of them, not reaching before @line); *@ret_start: where they
 * begin (@end if there are none). False if it does not fit a pid. */
static bool parse_pid_before(const char *line, const char *end, const char **ret_start, int32_t *ret_pid) {
        const char *start;
        int64_t v = 0;

        for (start = end; start > line && isdigit((unsigned char) start[-1]) && end - start < 10; start--)
                ;
        *ret_start = start;
        for (const char *p = start; p < end; p++)
                v = v * 10 + (*p - '0');
        if (start == end || v > INT32_MAX)
                return false;
        *ret_pid = (int32_t) v;
        return true;
}

static bool parse_context(const char *line, const char *bracket, int32_t *ret_pid) {
        const char *end = bracket, *start;
        int32_t pid;

        while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
        if (end == bracket || !parse_pid_before(line, end, &start, &pid))
                return false;
        if (start > line && start[-1] != ' ' && start[-1] != '\t' && start[-1] != '/')
                return false;
        *ret_pid = pid;
        return true;
}

static const char *skip_blanks(const char *p) {
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

static const char *skip_blanks_back(const char *start, const char *p) {
        while (p > start && (p[-1] == ' ' || p[-1] == '\t'))
                p--;
        return p;
}

/*
 * The task in ftrace's "<comm>-<pid>" column before " [CPU]", and before the "(<tgid>)" column that
 * options/record-tgid adds ("(-------)" for an unknown tgid): kernel/trace/trace_output.c, trace_print_context(),
 * as trace-cmd report prints it too ("%16s-%-5d"). A comm may hold dashes and spaces itself, so the pid is the
 * digits after the last dash. Every ftrace line has it; false for a line without.
 */
static bool parse_context_ftrace(const char *line, const char *bracket, int32_t *ret_pid) {
        const char *end = skip_blanks_back(line, bracket), *start;
        int32_t pid;

        if (end > line && end[-1] == ')') {
                end = memrchr(line, '(', (size_t) (end - line));
                if (!end)
                        return false;
                end = skip_blanks_back(line, end);
        }
        if (!parse_pid_before(line, end, &start, &pid) || start == line || start[-1] != '-')
                return false;
        *ret_pid = pid;
        return true;
}

/*
 * ftrace's latency flags column between "[CPU]" and the time (options/irq-info, on by default): irqs-off,
 * need-resched, hardirq/softirq, preempt depth and, since 5.13, migrate-disable, one character each
 * (trace_print_lat_fmt(), kernel/trace/trace_output.c: "d..2." or, before 5.13 and on Android, "d..2"). Returns
 * the position after it and the blanks that follow, or NULL.
 */
static const char *skip_flags(const char *p) {
        const char *start = p;

        while (isalnum((unsigned char) *p) || *p == '.')
                p++;
        if (p == start || p - start > 8 || (*p != ' ' && *p != '\t'))
                return NULL;
        return skip_blanks(p);
}

/*
 * The event name, of word characters: "sys:name:" (perf script) or "name:" (ftrace, which prints no
 * subsystem). Returns the position of its last ':' and sets *@ret_layout, or NULL.
 */
static const char *event_name_end(const char *p, TraceTextFormat *ret_layout) {
        const char *start = p;
        bool sys = false;

        for (; *p != '\0' && *p != ' '; p++) {
                if (*p != ':')
                        continue;
                if (sys) {
                        *ret_layout = TRACE_TEXT_PERF;
                        return p;
                }
                if (p > start && (p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == '\0')) {
                        *ret_layout = TRACE_TEXT_FTRACE;
                        return p;
                }
                sys = true;
        }
        return NULL;
}

/*
 * Finds the "[CPU] TIME: EVENT:" part (perf script) or "[CPU] FLAGS TIME: EVENT:" (ftrace, the flags
 * optional). The comm before it may contain spaces and brackets, so try every '[' until one is followed by the
 * expected shape. Sets @ev's cpu, time and context and *@ret_layout; returns the position after "EVENT:" or
 * NULL.
 */
static const char *parse_header(const char *line, SchedEvent *ev, char *event, size_t event_size,
                                TraceTextFormat *ret_layout) {
        for (const char *b = strchr(line, '['); b; b = strchr(b + 1, '[')) {
                const char *p = b + 1, *t, *e;
                TraceTextFormat layout;
                bool flags = false;
                long cpu = 0;
                size_t n;

                if (!isdigit((unsigned char) *p))
                        continue;
                for (; isdigit((unsigned char) *p) && cpu < 100000; p++)
                        cpu = cpu * 10 + (*p - '0');
                if (*p++ != ']')
                        continue;
                p = skip_blanks(p);
                t = parse_time(p, &ev->time_ns);
                if (!t) {
                        p = skip_flags(p);
                        t = p ? parse_time(p, &ev->time_ns) : NULL;
                        flags = true;
                }
                if (!t || *t++ != ':')
                        continue;
                p = skip_blanks(t);
                e = event_name_end(p, &layout);
                if (!e || (flags && layout != TRACE_TEXT_FTRACE))
                        continue;
                n = (size_t) (e - p);
                if (n >= event_size)
                        continue;
                memcpy(event, p, n);
                event[n] = '\0';
                ev->cpu = (int) cpu;
                ev->has_context = layout == TRACE_TEXT_FTRACE ? parse_context_ftrace(line, b, &ev->context_pid) :
                                                                parse_context(line, b, &ev->context_pid);
                *ret_layout = layout;
                return e + 1;
        }
        return NULL;
}

/* The comm of @f, empty when the line has none. */
static void field_comm(const TraceField *f, char comm[TASK_COMM_LEN]) {
        if (trace_field_copy(f, comm, TASK_COMM_LEN) < 0)
                comm[0] = '\0';
}

/*
 * prev_state as TP_printk prints it (include/trace/events/sched.h): "R" runnable, "R+" preempted, else a
 * '|'-joined list of letters. Since 4.14 they are S D T t X Z P I; before, S D T t X Z x K W P N (3.x-4.13,
 * "D|K" for TASK_KILLABLE), and libtraceevent's sched_switch plugin (what `trace-cmd report` prints) names the
 * low eight bits S D T t Z X x W and shows a preempted task as "R". Only R/R+ keep prev on the run queue
 * (reference §6.3); the value kept is the letters' bits in the 4.14+ order, the extra old letters above them.
 * A number (`trace-cmd report -R`, the raw value) is runnable when 0 or when only bits above the eight task
 * states are set: the preempted bit, TASK_REPORT_MAX (0x100) since 4.14, TASK_STATE_MAX before.
 */
static int parse_prev_state(const char *s, int64_t *ret_state, bool *ret_runnable) {
        static const char letters[] = "SDTtXZPIxKWN";

        if (s[0] == 'R' && (s[1] == '\0' || (s[1] == '+' && s[2] == '\0'))) {
                *ret_state = s[1] == '+' ? 0x100 : 0; /* TASK_REPORT_MAX marks preemption on 4.14+ */
                *ret_runnable = true;
                return 0;
        }
        if (isdigit((unsigned char) s[0])) {
                TraceField f = { .value = s, .value_len = strlen(s) };
                uint64_t v;

                if (trace_field_u64(&f, &v) < 0 || v > INT64_MAX)
                        return -EINVAL;
                *ret_state = (int64_t) v;
                *ret_runnable = (v & 0xff) == 0;
                return 0;
        }

        int64_t state = 0;
        for (const char *p = s; *p; p++) {
                const char *l = strchr(letters, *p);

                if (*p == '|' && p != s && p[1])
                        continue;
                if (!l || *p == '\0')
                        return -EINVAL;
                state |= INT64_C(1) << (l - letters);
        }
        if (state == 0)
                return -EINVAL;
        *ret_state = state;
        *ret_runnable = false;
        return 0;
}

/* Whether [@p, @end) is a decimal number, optionally negative, that fits an int32_t: stored in *@ret. */
static bool parse_int32_span(const char *p, const char *end, int32_t *ret) {
        TraceField f = { .value = p, .value_len = (size_t) (end - p) };

        return end > p && trace_field_int32(&f, ret) >= 0;
}

/*
 * "COMM:PID [PRIO]" ending at @end, as libtraceevent's sched_switch plugin prints a task
 * (plugins/plugin_sched_switch.c: write_and_save_comm(), then "%lld" and " [%d]"). Parsed from the right: the
 * comm may hold ':' and spaces. Returns the start of the comm, or NULL.
 */
static const char *parse_plugin_task(const char *start, const char *end, char comm[TASK_COMM_LEN], int32_t *ret_pid,
                                     int32_t *ret_prio) {
        const char *open, *colon;
        size_t n;

        end = skip_blanks_back(start, end);
        if (end == start || end[-1] != ']')
                return NULL;
        open = memrchr(start, '[', (size_t) (end - start));
        if (!open || !parse_int32_span(open + 1, end - 1, ret_prio))
                return NULL;
        end = skip_blanks_back(start, open);
        if (end == open)
                return NULL;
        colon = memrchr(start, ':', (size_t) (end - start));
        if (!colon || !parse_int32_span(colon + 1, end, ret_pid))
                return NULL;
        start = skip_blanks(start);
        if (colon < start)
                return NULL;
        n = MIN((size_t) (colon - start), (size_t) TASK_COMM_LEN - 1);
        memcpy(comm, start, n);
        comm[n] = '\0';
        return start;
}

/* The end of @text's line: its '\n' or NUL. */
static const char *line_end(const char *text) {
        return text + strcspn(text, "\n");
}

/*
 * The plugin's sched_switch: "PREV_COMM:PREV_PID [PREV_PRIO] STATE ==> NEXT_COMM:NEXT_PID [NEXT_PRIO]". A
 * comm holding " ==> " makes the first one wrong: every one is tried.
 */
static int parse_switch_plugin(const char *text, SchedEvent *ev) {
        const char *end = line_end(text);

        for (const char *arrow = strstr(text, " ==> "); arrow && arrow < end; arrow = strstr(arrow + 1, " ==> ")) {
                const char *state_end = skip_blanks_back(text, arrow), *state = state_end;
                char buf[32];

                while (state > text && state[-1] != ' ' && state[-1] != '\t')
                        state--;
                if (state == state_end || (size_t) (state_end - state) >= sizeof(buf))
                        continue;
                memcpy(buf, state, (size_t) (state_end - state));
                buf[state_end - state] = '\0';
                if (parse_prev_state(buf, &ev->sw.prev_state, &ev->sw.prev_runnable) < 0 ||
                    !parse_plugin_task(text, state, ev->sw.prev_comm, &ev->sw.prev_pid, &ev->sw.prev_prio) ||
                    !parse_plugin_task(arrow + 5, end, ev->sw.next_comm, &ev->sw.next_pid, &ev->sw.next_prio))
                        continue;
                return 0;
        }
        return -EINVAL;
}

static int parse_switch(const char *text, SchedEvent *ev, const char **reason) {
        enum { PREV_COMM, PREV_PID, PREV_PRIO, PREV_STATE, NEXT_COMM, NEXT_PID, NEXT_PRIO };
        TraceField f[] = {
                [PREV_COMM] = { .key = "prev_comm" },   [PREV_PID] = { .key = "prev_pid" },
                [PREV_PRIO] = { .key = "prev_prio" },   [PREV_STATE] = { .key = "prev_state" },
                [NEXT_COMM] = { .key = "next_comm" },   [NEXT_PID] = { .key = "next_pid" },
                [NEXT_PRIO] = { .key = "next_prio" },
        };
        char state[32];

        trace_fields_find(text, f, ELEMENTSOF(f));
        if (!f[PREV_PID].value && !f[NEXT_PID].value) {
                if (parse_switch_plugin(text, ev) >= 0)
                        return 0;
                *reason = "sched_switch neither with prev_pid=… next_pid=… nor as 'comm:pid [prio] state ==> "
                          "comm:pid [prio]' (trace-cmd report)";
                return -EINVAL;
        }
        field_comm(&f[PREV_COMM], ev->sw.prev_comm);
        field_comm(&f[NEXT_COMM], ev->sw.next_comm);
        if (trace_field_int32(&f[PREV_PID], &ev->sw.prev_pid) < 0 ||
            trace_field_int32(&f[NEXT_PID], &ev->sw.next_pid) < 0) {
                *reason = "sched_switch without a valid prev_pid= or next_pid=";
                return -EINVAL;
        }
        if (trace_field_int32(&f[PREV_PRIO], &ev->sw.prev_prio) < 0 ||
            trace_field_int32(&f[NEXT_PRIO], &ev->sw.next_prio) < 0) {
                *reason = "sched_switch without a valid prev_prio= or next_prio=";
                return -EINVAL;
        }
        if (trace_field_copy(&f[PREV_STATE], state, sizeof(state)) < 0 ||
            parse_prev_state(state, &ev->sw.prev_state, &ev->sw.prev_runnable) < 0) {
                *reason = "sched_switch without a valid prev_state= (expected R, R+, a '|'-list of S D T t X Z P I x K W N, or a number)";
                return -EINVAL;
        }
        return 0;
}

/* The fields of the other events: `comm=%s pid=%d`, then two or three numbers (TP_printk of each). */
enum { F_COMM, F_PID, F_A, F_B, F_C, _F_MAX };

static void task_fields_find(const char *text, TraceField f[static _F_MAX], size_t n_fields, char comm[TASK_COMM_LEN]) {
        f[F_COMM].key = "comm";
        f[F_PID].key = "pid";
        trace_fields_find(text, f, n_fields);
        field_comm(&f[F_COMM], comm);
}

/* The last blank-separated word of [@start, @end) (blanks at the end skipped): its start, *@ret_end its end. */
static const char *last_word(const char *start, const char *end, const char **ret_end) {
        const char *p;

        end = skip_blanks_back(start, end);
        for (p = end; p > start && p[-1] != ' ' && p[-1] != '\t';)
                p--;
        *ret_end = end;
        return p;
}

/*
 * The plugin's sched_wakeup and sched_wakeup_new: "COMM:PID [PRIO] CPU:NNN", " success=N" before the CPU on
 * kernels before ~5.14 (plugins/plugin_sched_switch.c, sched_wakeup_handler()).
 */
static int parse_wakeup_plugin(const char *text, SchedEvent *ev) {
        const char *end = line_end(text), *w, *w_end;

        w = last_word(text, end, &w_end);
        if (w_end - w < 5 || strncmp(w, "CPU:", 4) != 0 || !parse_int32_span(w + 4, w_end, &ev->wakeup.target_cpu) ||
            ev->wakeup.target_cpu < 0)
                return -EINVAL;
        end = w;
        w = last_word(text, end, &w_end);
        if (w_end - w > 8 && strncmp(w, "success=", 8) == 0)
                end = w;
        return parse_plugin_task(text, end, ev->wakeup.comm, &ev->wakeup.pid, &ev->wakeup.prio) ? 0 : -EINVAL;
}

static int parse_wakeup(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = { [F_A] = { .key = "prio" }, [F_B] = { .key = "target_cpu" } };

        task_fields_find(text, f, F_C, ev->wakeup.comm);
        if (!f[F_PID].value) {
                if (parse_wakeup_plugin(text, ev) >= 0)
                        return 0;
                *reason = "sched_wakeup neither with pid=… prio=… target_cpu=… nor as 'comm:pid [prio] CPU:nnn' "
                          "(trace-cmd report)";
                return -EINVAL;
        }
        if (trace_field_int32(&f[F_PID], &ev->wakeup.pid) < 0 || trace_field_int32(&f[F_A], &ev->wakeup.prio) < 0 ||
            trace_field_int32(&f[F_B], &ev->wakeup.target_cpu) < 0 || ev->wakeup.target_cpu < 0) {
                *reason = "sched_wakeup without a valid pid=, prio= or target_cpu=";
                return -EINVAL;
        }
        return 0;
}

static int parse_migrate(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = {
                [F_A] = { .key = "prio" }, [F_B] = { .key = "orig_cpu" }, [F_C] = { .key = "dest_cpu" },
        };

        task_fields_find(text, f, _F_MAX, ev->migrate.comm);
        if (trace_field_int32(&f[F_PID], &ev->migrate.pid) < 0 || trace_field_int32(&f[F_A], &ev->migrate.prio) < 0 ||
            trace_field_int32(&f[F_B], &ev->migrate.orig_cpu) < 0 ||
            trace_field_int32(&f[F_C], &ev->migrate.dest_cpu) < 0 || ev->migrate.orig_cpu < 0 ||
            ev->migrate.dest_cpu < 0) {
                *reason = "sched_migrate_task without a valid pid=, prio=, orig_cpu= or dest_cpu=";
                return -EINVAL;
        }
        return 0;
}

static int parse_exit(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = { [F_A] = { .key = "prio" } };

        task_fields_find(text, f, F_B, ev->exit.comm);
        if (trace_field_int32(&f[F_PID], &ev->exit.pid) < 0 || trace_field_int32(&f[F_A], &ev->exit.prio) < 0) {
                *reason = "sched_process_exit without a valid pid= or prio=";
                return -EINVAL;
        }
        return 0;
}

static int parse_runtime(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = { [F_A] = { .key = "runtime" } };

        task_fields_find(text, f, F_B, ev->runtime.comm);
        if (trace_field_int32(&f[F_PID], &ev->runtime.pid) < 0 ||
            trace_field_u64(&f[F_A], &ev->runtime.runtime_ns) < 0) {
                *reason = "sched_stat_runtime without a valid pid= or runtime=";
                return -EINVAL;
        }
        return 0;
}

/* sched_stat_template's TP_printk: `comm=%s pid=%d delay=%Lu [ns]` (include/trace/events/sched.h). */
static int parse_iowait(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = { [F_A] = { .key = "delay" } };

        task_fields_find(text, f, F_B, ev->iowait.comm);
        if (trace_field_int32(&f[F_PID], &ev->iowait.pid) < 0 || trace_field_u64(&f[F_A], &ev->iowait.delay_ns) < 0) {
                *reason = "sched_stat_iowait without a valid pid= or delay=";
                return -EINVAL;
        }
        return 0;
}

/* Whether @p starts with @prefix, then optionally a number: *@ret_end past both. */
static bool starts_with_number(const char *p, const char *prefix, const char **ret_end) {
        size_t n = strlen(prefix);

        if (strncmp(p, prefix, n) != 0)
                return false;
        p += n;
        while (isdigit((unsigned char) *p))
                p++;
        *ret_end = p;
        return true;
}

static bool at_line_end(const char *p) {
        p = skip_blanks(p);
        return *p == '\0' || *p == '\n';
}

/*
 * Lines around the events of an ftrace text: `trace-cmd report`'s "cpus=N" first line (tracecmd/trace-read.c)
 * and "CPU N is empty", systrace's "TRACE:" before the ftrace text, and where a CPU's buffer lost events:
 * "CPU:N [LOST N EVENTS]" in the tracefs `trace` file (kernel/trace/trace.c, print_trace_line()), "CPU:N [N
 * EVENTS DROPPED]" or "CPU:N [EVENTS DROPPED]" in trace-cmd report. Returns the TRACE_LINE_* kind, or -1 for
 * none of them. @p is past the leading blanks.
 */
static int parse_non_event(const char *p) {
        const char *e;

        if (starts_with_number(p, "cpus=", &e) && e > p + 5 && at_line_end(e))
                return TRACE_LINE_EMPTY;
        if (strncmp(p, "TRACE:", 6) == 0 && at_line_end(p + 6))
                return TRACE_LINE_EMPTY;
        if (starts_with_number(p, "CPU ", &e) && e > p + 4 && strncmp(e, " is empty", 9) == 0 && at_line_end(e + 9))
                return TRACE_LINE_EMPTY;
        if (starts_with_number(p, "CPU:", &e) && e > p + 4 && strncmp(e, " [", 2) == 0) {
                const char *w = e + 2, *n;

                if (starts_with_number(w, "LOST ", &n) && n > w + 5 && strncmp(n, " EVENTS]", 8) == 0 &&
                    at_line_end(n + 8))
                        return TRACE_LINE_LOST;
                if (starts_with_number(w, "", &n) && strncmp(n, n > w ? " EVENTS DROPPED]" : "EVENTS DROPPED]",
                                                             n > w ? 16 : 15) == 0 &&
                    at_line_end(n + (n > w ? 16 : 15)))
                        return TRACE_LINE_LOST;
        }
        return -1;
}

static const char *bad_header_reason(TraceTextFormat format) {
        switch (format) {
        case TRACE_TEXT_PERF:
                return "expected '<comm> <pid> [<cpu>] <sec>.<usec|nsec>: <sys>:<event>: …' (perf script, as the "
                       "first event line)";
        case TRACE_TEXT_FTRACE:
                return "expected '<comm>-<pid> [<cpu>] [<flags>] <sec>.<usec|nsec>: <event>: …' (ftrace, as the "
                       "first event line)";
        case TRACE_TEXT_UNKNOWN:
        default:
                return "expected a `perf script` line '<comm> <pid> [<cpu>] <sec>.<usec|nsec>: <sys>:<event>: …' "
                       "or an ftrace line '<comm>-<pid> [<cpu>] [<flags>] <sec>.<usec|nsec>: <event>: …'";
        }
}

int trace_parse_line(const char *line, SchedEvent *ret, const char **ret_reason) {
        TraceTextFormat format = TRACE_TEXT_UNKNOWN;

        return trace_parse_line_format(line, &format, ret, ret_reason);
}

int trace_parse_line_format(const char *line, TraceTextFormat *format, SchedEvent *ret, const char **ret_reason) {
        const char *reason = NULL, *fields, *p = line + strspn(line, " \t");
        TraceTextFormat layout = TRACE_TEXT_UNKNOWN;
        SchedEvent ev = {};
        char event[64];
        int r = -EINVAL;

        if (*p == '\0' || *p == '\n' || *p == '#')
                return TRACE_LINE_EMPTY;
        r = parse_non_event(p);
        if (r >= 0)
                return r;
        r = -EINVAL;

        fields = parse_header(line, &ev, event, sizeof(event), &layout);
        if (!fields) {
                *ret_reason = bad_header_reason(*format);
                return -EINVAL;
        }
        if (*format == TRACE_TEXT_UNKNOWN)
                *format = layout;
        else if (layout != *format) {
                *ret_reason = layout == TRACE_TEXT_FTRACE ?
                        "an ftrace line ('<comm>-<pid> [<cpu>] … <event>:') in a `perf script` trace (as its first "
                        "event line is)" :
                        "a `perf script` line ('<comm> <pid> [<cpu>] … <sys>:<event>:') in an ftrace trace (as its "
                        "first event line is)";
                return -EINVAL;
        }

        ev.type = sched_event_type_from_string(event);
        switch (ev.type) {
        case SCHED_EVENT_SWITCH:
                r = parse_switch(fields, &ev, &reason);
                break;
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                r = parse_wakeup(fields, &ev, &reason);
                break;
        case SCHED_EVENT_MIGRATE:
                r = parse_migrate(fields, &ev, &reason);
                break;
        case SCHED_EVENT_EXIT:
                r = parse_exit(fields, &ev, &reason);
                break;
        case SCHED_EVENT_RUNTIME:
                r = parse_runtime(fields, &ev, &reason);
                break;
        case SCHED_EVENT_STAT_IOWAIT:
                r = parse_iowait(fields, &ev, &reason);
                break;
        case SCHED_EVENT_CPU_FREQUENCY: /* not a scheduler event: trace_parse_cpu_frequency() reads it */
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                return TRACE_LINE_OTHER;
        }
        if (r < 0) {
                *ret_reason = reason;
                return r;
        }

        *ret = ev;
        return TRACE_LINE_EVENT;
}

/* power:cpu_frequency's TP_printk: `state=%lu cpu_id=%lu` (include/trace/events/power.h, the cpu template). */
int trace_parse_cpu_frequency(const char *line, TraceCpuFrequency *ret) {
        enum { STATE, CPU_ID };
        TraceField f[] = { [STATE] = { .key = "state" }, [CPU_ID] = { .key = "cpu_id" } };
        TraceTextFormat layout;
        SchedEvent ev = {};
        const char *fields;
        char event[64];
        uint64_t khz;
        int32_t cpu;

        fields = parse_header(line, &ev, event, sizeof(event), &layout);
        if (!fields || sched_event_type_from_string(event) != SCHED_EVENT_CPU_FREQUENCY)
                return 0;
        trace_fields_find(fields, f, ELEMENTSOF(f));
        if (trace_field_u64(&f[STATE], &khz) < 0 || khz > UINT32_MAX || trace_field_int32(&f[CPU_ID], &cpu) < 0 ||
            cpu < 0)
                return -EINVAL;
        *ret = (TraceCpuFrequency) { .time_ns = ev.time_ns, .cpu = cpu, .khz = (uint32_t) khz };
        return 1;
}

#define SESSION_LINE "# schedfreqd-session:"

/* `# schedfreqd-session: pid=<tid> sid=<sid>` */
static int parse_session_line(const char *line, TraceSession *ret) {
        enum { PID, SID };
        TraceField f[] = { [PID] = { .key = "pid" }, [SID] = { .key = "sid" } };
        int32_t pid, sid;

        trace_fields_find(line + strlen(SESSION_LINE), f, ELEMENTSOF(f));
        if (trace_field_int32(&f[PID], &pid) < 0 || trace_field_int32(&f[SID], &sid) < 0 || pid <= 0 || sid < 0)
                return -EINVAL;
        *ret = (TraceSession) { .pid = pid, .sid = sid };
        return 1;
}

/* Whether @event ("syscalls:sys_exit_setsid", or ftrace's "sys_exit_setsid") is setsid's exit. */
static bool event_is_setsid_exit(const char *event) {
        const char *name = strrchr(event, ':');

        return strcmp(name ? name + 1 : event, "sys_exit_setsid") == 0;
}

int trace_parse_session(const char *line, TraceSession *ret) {
        TraceTextFormat layout;
        SchedEvent ev = {};
        const char *fields;
        char event[64], *end;
        unsigned long long sid;

        if (strncmp(line, SESSION_LINE, strlen(SESSION_LINE)) == 0)
                return parse_session_line(line, ret);
        fields = parse_header(line, &ev, event, sizeof(event), &layout);
        if (!fields || !event_is_setsid_exit(event))
                return 0;
        if (!ev.has_context)
                return -EINVAL;
        errno = 0;
        sid = strtoull(skip_blanks(fields), &end, 16);
        if (errno != 0 || end == skip_blanks(fields))
                return -EINVAL;
        if (sid == 0 || sid > INT32_MAX)
                return 0;         /* -EPERM (printed unsigned): already a group leader */
        *ret = (TraceSession) { .time_ns = ev.time_ns, .pid = ev.context_pid, .sid = (int32_t) sid };
        return 1;
}
