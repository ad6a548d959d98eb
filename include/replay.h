/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * `schedfreqd replay`: feeds the engine with the events of a `perf script` text trace instead of perf rings
 * and prints one line per frequency change:
 *   t=<ns> policy=<first cpu> freq=<kHz> cpu=<cpu whose event caused it> kind=<local|remote> util=<0..1024>
 *
 * Input is what `perf script` (or `perf script --ns`) prints for the sched tracepoints by default:
 *   <comm> <pid> [<cpu>] <sec>.<usec|nsec>: sched:<event>: key=value …
 * The modelled events: sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task, sched_process_exit,
 * sched_stat_runtime and sched_stat_iowait (the iowait boost, recorded where schedstats are on).
 * Lines of other events are skipped and counted; blank lines and lines starting with '#' are ignored.
 */

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "engine.h"
#include "sched-event.h"
#include "topology.h"

typedef struct ReplayStats {
        uint64_t lines;
        uint64_t events;
        uint64_t skipped;          /* lines of events we do not model */
        uint64_t changes;
} ReplayStats;

/*
 * Parses one line. Returns REPLAY_LINE_EVENT and fills @ret for a modelled sched event, REPLAY_LINE_EMPTY for
 * blank and comment lines, REPLAY_LINE_OTHER for other events (to be skipped and counted), or -EINVAL with
 * @ret_reason pointing at a static description of what is wrong.
 */
enum {
        REPLAY_LINE_EMPTY,
        REPLAY_LINE_EVENT,
        REPLAY_LINE_OTHER,
};

int replay_parse_line(const char *line, SchedEvent *ret, const char **ret_reason);

/* Prints @d in the replay output format; policy= is the policy's first CPU. */
void decision_print(FILE *f, const Decision *d, const Topology *t);

/*
 * The same line with what the live daemon knows besides (`schedfreqd --print-decisions`), appended as more
 * key=value fields: ` reason=<demand|rt|iowait|limits>`, and for a change that applied a demand change a
 * disallowed remote event had left, ` deferred=<ns it waited>`.
 */
void decision_print_details(FILE *f, const Decision *d, const Topology *t);

/*
 * Replays @in (named @name in messages) through a fresh engine, writing changes to @out. Synthetic ticks are
 * generated from the trace's own clock on the cfg->tick_usec grid while some CPU is busy, as the live daemon's
 * timer does (and as the kernel ticks only busy CPUs). On malformed input returns -EINVAL with a malloc'd
 * "NAME:LINE: reason" in @ret_error.
 */

typedef enum ReplayFlags {
        /*
         * --print-util: after each event (and synthetic tick), one line per CPU whose signals changed:
         *   t=<ns> cpu=<n> util=<cfs util_avg> util_est=<n> runnable=<n> rt=<n> eff=<utilisation the governor used>
         */
        REPLAY_PRINT_UTIL = 1 << 0,
} ReplayFlags;

int replay_run(FILE *in, const char *name, const Topology *topo, const Config *cfg, ReplayFlags flags, FILE *out,
               ReplayStats *ret_stats, char **ret_error);
