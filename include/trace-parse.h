/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * One line of a text trace → SchedEvent. Two layouts of line:
 *   `perf script` (or `perf script --ns`), what it prints for the sched tracepoints by default:
 *     <comm> <pid> [<cpu>] <sec>.<usec|nsec>: sched:<event>: key=value …
 *   ftrace: the tracefs `trace` file (kernel/trace/trace_output.c), `trace-cmd report`, Android's systrace text:
 *     <comm>-<pid> [(<tgid>)] [<cpu>] [<flags>] <sec>.<usec|nsec>: <event>: key=value …
 *     with the tgid column of options/record-tgid, the flags column of options/irq-info ("d..2." or "d..2"),
 *     trace-cmd report's "<buffer>: " before the task of a trace recorded with -B.
 * The key=value part is each tracepoint's TP_printk format (include/trace/events/sched.h), of current kernels
 * and of old ones (sched_wakeup's success=, the prev_state letters of 3.x-4.13); for sched_switch and
 * sched_wakeup* also the form libtraceevent's sched_switch plugin prints (`trace-cmd report`):
 *     <prev_comm>:<prev_pid> [<prio>] <state> ==> <next_comm>:<next_pid> [<prio>]
 *     <comm>:<pid> [<prio>] [success=1] CPU:<target_cpu>
 * The modelled events: sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task, sched_process_exit,
 * sched_stat_runtime and sched_stat_iowait; power:cpu_frequency (include/trace/events/power.h) is read apart,
 * by trace_parse_cpu_frequency(). Pure: no I/O; the one state between lines is the layout
 * (trace_parse_line_format()).
 */

#include <stdint.h>

#include "sched-event.h"

/* One power:cpu_frequency line (`state=<kHz> cpu_id=<cpu>`): the kernel's frequency for that CPU's policy. */
typedef struct TraceCpuFrequency {
        uint64_t time_ns;
        int cpu;
        uint32_t khz;
} TraceCpuFrequency;

/*
 * Parses a power:cpu_frequency line (`cpu_frequency:` in ftrace's layout). Returns 1 and fills @ret, 0 for a line of another event (or no event),
 * -EINVAL for a power:cpu_frequency line without a valid state= or cpu_id=.
 */
int trace_parse_cpu_frequency(const char *line, TraceCpuFrequency *ret);

/*
 * Sessions, for the task groups of autogroup (demand-groups.c: kernel/sched/autogroup.c gives each session one):
 *  - syscalls:sys_exit_setsid (`sys_exit_setsid:` in ftrace's layout), whose print is the return value `0x%lx`
 *    (kernel/trace/trace_syscalls.c, print_syscall_exit()): a task (the line's context) started session @sid
 *    (its own pid);
 *  - the line `# schedfreqd-session: pid=<tid> sid=<sid>` (what tests/oracle/run-oracle.sh writes before a
 *    recording's events, from /proc/<tid>/stat's session field, for the tasks that existed before it): a comment
 *    to other readers.
 */
typedef struct TraceSession {
        uint64_t time_ns;         /* setsid's; 0 for a session line (before every event) */
        int32_t pid;
        int32_t sid;
} TraceSession;

/*
 * Returns 1 and fills @ret for a successful setsid or a session line, 0 for any other line (a failed setsid
 * among them), -EINVAL for a setsid or session line without its numbers.
 */
int trace_parse_session(const char *line, TraceSession *ret);

/*
 * Parses one line. Returns TRACE_LINE_EVENT and fills @ret for a modelled sched event, TRACE_LINE_EMPTY for
 * blank and comment lines, TRACE_LINE_OTHER for other events (to be skipped and counted), or -EINVAL with
 * @ret_reason pointing at a static description of what is wrong.
 */
enum {
        TRACE_LINE_EMPTY,
        TRACE_LINE_EVENT,
        TRACE_LINE_OTHER,
        TRACE_LINE_LOST,          /* ftrace's "CPU:N [LOST N EVENTS]" (trace-cmd: "[N EVENTS DROPPED]"): a gap */
};

int trace_parse_line(const char *line, SchedEvent *ret, const char **ret_reason);

/* The layout of a text trace's event lines: one per trace, the first event line's. */
typedef enum TraceTextFormat {
        TRACE_TEXT_UNKNOWN,       /* no event line yet */
        TRACE_TEXT_PERF,
        TRACE_TEXT_FTRACE,
} TraceTextFormat;

/*
 * trace_parse_line() within a trace: *@format is what its first event line was (TRACE_TEXT_UNKNOWN before it,
 * then set by it); an event line of the other layout is -EINVAL. trace_parse_line() is this with a fresh
 * TRACE_TEXT_UNKNOWN, for one line alone.
 */
int trace_parse_line_format(const char *line, TraceTextFormat *format, SchedEvent *ret, const char **ret_reason);
