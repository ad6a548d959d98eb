/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-parse.c: one line of `perf script` text → SchedEvent (include/trace-parse.h). Pure; it knows the
 * default `perf script` layout of the sched tracepoints' print formats (include/trace/events/sched.h
 * TP_printk) and of power:cpu_frequency's (include/trace/events/power.h), in both the µs (default) and --ns
 * timestamp styles. The key=value fields are found by trace-fields.c.
 */

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "macro.h"
#include "time-util.h"
#include "trace-fields.h"
#include "trace-parse.h"

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
static bool parse_context(const char *line, const char *bracket, int32_t *ret_pid) {
        const char *end = bracket, *start;
        int64_t v = 0;

        while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
        if (end == bracket)
                return false;
        for (start = end; start > line && isdigit((unsigned char) start[-1]) && end - start < 10; start--)
                ;
        if (start == end || (start > line && start[-1] != ' ' && start[-1] != '\t' && start[-1] != '/'))
                return false;
        for (const char *p = start; p < end; p++)
                v = v * 10 + (*p - '0');
        if (v > INT32_MAX)
                return false;
        *ret_pid = (int32_t) v;
        return true;
}

static const char *skip_blanks(const char *p) {
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

/* The event name is "sys:name", without spaces: returns the position of the ':' after it, or NULL. */
static const char *event_name_end(const char *p) {
        bool sys = false;

        for (; *p != '\0' && *p != ' '; p++) {
                if (*p != ':')
                        continue;
                if (sys)
                        return p;
                sys = true;
        }
        return NULL;
}

/*
 * Finds the "[CPU] TIME: EVENT:" part. The comm before it may contain spaces and brackets, so try every '['
 * until one is followed by the expected shape. Sets @ev's cpu, time and context; returns the position after
 * "EVENT:" or NULL.
 */
static const char *parse_header(const char *line, SchedEvent *ev, char *event, size_t event_size) {
        for (const char *b = strchr(line, '['); b; b = strchr(b + 1, '[')) {
                const char *p = b + 1, *e;
                long cpu = 0;
                size_t n;

                if (!isdigit((unsigned char) *p))
                        continue;
                for (; isdigit((unsigned char) *p) && cpu < 100000; p++)
                        cpu = cpu * 10 + (*p - '0');
                if (*p++ != ']')
                        continue;
                p = skip_blanks(p);
                p = parse_time(p, &ev->time_ns);
                if (!p || *p++ != ':')
                        continue;
                p = skip_blanks(p);
                e = event_name_end(p);
                if (!e)
                        continue;
                n = (size_t) (e - p);
                if (n >= event_size)
                        continue;
                memcpy(event, p, n);
                event[n] = '\0';
                ev->cpu = (int) cpu;
                ev->has_context = parse_context(line, b, &ev->context_pid);
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
 * '|'-joined list of S D T t X Z P I. Only R/R+ keep prev on the run queue (reference §6.3).
 */
static int parse_prev_state(const char *s, int64_t *ret_state, bool *ret_runnable) {
        static const char letters[] = "SDTtXZPI";

        if (s[0] == 'R' && (s[1] == '\0' || (s[1] == '+' && s[2] == '\0'))) {
                *ret_state = s[1] == '+' ? 0x100 : 0; /* TASK_REPORT_MAX marks preemption on 4.14+ */
                *ret_runnable = true;
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
                *reason = "sched_switch without a valid prev_state= (expected R, R+ or S|D|T|t|X|Z|P|I)";
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

static int parse_wakeup(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = { [F_A] = { .key = "prio" }, [F_B] = { .key = "target_cpu" } };

        task_fields_find(text, f, F_C, ev->wakeup.comm);
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

int trace_parse_line(const char *line, SchedEvent *ret, const char **ret_reason) {
        static const char *const bad_header = "expected '<comm> <pid> [<cpu>] <sec>.<usec|nsec>: <sys>:<event>: …'";
        const char *reason = NULL, *fields, *p = line + strspn(line, " \t");
        SchedEvent ev = {};
        char event[64];
        int r = -EINVAL;

        if (*p == '\0' || *p == '\n' || *p == '#')
                return TRACE_LINE_EMPTY;

        fields = parse_header(line, &ev, event, sizeof(event));
        if (!fields) {
                *ret_reason = bad_header;
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
        SchedEvent ev = {};
        const char *fields;
        char event[64];
        uint64_t khz;
        int32_t cpu;

        fields = parse_header(line, &ev, event, sizeof(event));
        if (!fields || strcmp(event, "power:cpu_frequency") != 0)
                return 0;
        trace_fields_find(fields, f, ELEMENTSOF(f));
        if (trace_field_u64(&f[STATE], &khz) < 0 || khz > UINT32_MAX || trace_field_int32(&f[CPU_ID], &cpu) < 0 ||
            cpu < 0)
                return -EINVAL;
        *ret = (TraceCpuFrequency) { .time_ns = ev.time_ns, .cpu = cpu, .khz = (uint32_t) khz };
        return 1;
}
