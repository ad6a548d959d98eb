/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * One line of a `perf script` text trace → SchedEvent: what `perf script` (or `perf script --ns`) prints for
 * the sched tracepoints by default:
 *   <comm> <pid> [<cpu>] <sec>.<usec|nsec>: sched:<event>: key=value …
 * with the key=value part in each tracepoint's TP_printk format (include/trace/events/sched.h). The modelled
 * events: sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task, sched_process_exit,
 * sched_stat_runtime and sched_stat_iowait; power:cpu_frequency (include/trace/events/power.h) is read apart,
 * by trace_parse_cpu_frequency(). Pure: no I/O, no state between lines.
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
 * Parses a power:cpu_frequency line. Returns 1 and fills @ret, 0 for a line of another event (or no event),
 * -EINVAL for a power:cpu_frequency line without a valid state= or cpu_id=.
 */
int trace_parse_cpu_frequency(const char *line, TraceCpuFrequency *ret);

/*
 * Parses one line. Returns TRACE_LINE_EVENT and fills @ret for a modelled sched event, TRACE_LINE_EMPTY for
 * blank and comment lines, TRACE_LINE_OTHER for other events (to be skipped and counted), or -EINVAL with
 * @ret_reason pointing at a static description of what is wrong.
 */
enum {
        TRACE_LINE_EMPTY,
        TRACE_LINE_EVENT,
        TRACE_LINE_OTHER,
};

int trace_parse_line(const char *line, SchedEvent *ret, const char **ret_reason);
