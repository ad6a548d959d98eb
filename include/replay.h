/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * include/replay.h: the public interface of daemon/replay/ (schedfreqd replay). The one header of that folder the
 * rest of the tree includes; its private headers stay in daemon/replay/.
 */

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "governor.h"
#include "topology.h"

/*
 * `schedfreqd replay`: feeds the engine with the events of a recorded trace instead of perf rings
 * and prints one line per frequency change. For a person (REPLAY_TABLE, the command's default) a table row with
 * the time since the trace's first event and the task behind the change (replay-report.h); for scripts (flags
 * 0, `--kv`) a key=value line:
 *   t=<ns> policy=<first cpu> freq=<kHz> cpu=<cpu whose event caused it> kind=<local|remote> util=<0..1024>
 * or a CSV row (REPLAY_CSV). REPLAY_SUMMARY ends it with the summary (replay-report.h).
 *
 * Input, told apart by its content: a text trace, `perf script` or ftrace text (the tracefs `trace` file,
 * `trace-cmd report`, systrace), each line parsed by trace_parse_line_format() (include/events.h, which
 * lists the layouts and the modelled events; sched_stat_iowait is the iowait boost, recorded where schedstats
 * are on), lines of other events skipped and counted, blank and '#' lines ignored; or a trace-cmd .dat, its
 * records decoded by trace-dat.c (positions in messages are then "record N"); or a perf.data file, its samples
 * decoded by trace-perfdata.c in perf script's order ("sample N": the line perf script prints it on), the same
 * replay as of its `perf script --ns` text (on a pipe, `perf record -o - | schedfreqd replay -`, it is read whole
 * into memory first).
 */

/* Where replay's tick came from (ReplayStats.tick_source). */
typedef enum ReplayTickSource {
        REPLAY_TICK_CONFIG,        /* [governor] tick_ms = N */
        REPLAY_TICK_MEASURED,      /* tick_ms = auto: the trace's sched_stat_runtime spacing (model.h) */
        REPLAY_TICK_DEFAULT,       /* tick_ms = auto, not measurable: CONFIG_TICK_DEFAULT_USEC (CONFIG_HZ=250) */
        _REPLAY_TICK_SOURCE_MAX,
} ReplayTickSource;

typedef struct ReplayStats {
        uint64_t lines;            /* of a text trace; of a .dat, its records; of a perf.data, its samples */
        uint64_t events;
        uint64_t skipped;          /* lines of events we do not model */
        uint64_t changes;
        uint64_t ticks;            /* synthetic ticks run (a bounded number per gap between events: replay.c) */
        uint64_t late_events;      /* events older than the latest one (a reordering): applied at the latest time */
        uint64_t late_max_ns;      /* how far the latest of them was behind */
        uint64_t kernel_frequencies; /* power:cpu_frequency lines: the kernel's choices, compared with ours */
        uint64_t lost_gaps;        /* places where a CPU's buffer lost events (ftrace's "[LOST N EVENTS]", a
                                    * perf.data's PERF_RECORD_LOST) */
        uint64_t inferred_switch_ins; /* switch-ins the trace lost, put back from sched_stat_runtime
                                    * (replay-lookahead.h) */
        uint64_t redated_wakeups;  /* wake-ups onto an idle CPU applied at their enqueue, from sched_stat_runtime
                                    * (replay-lookahead.h) */
        uint64_t tick_ns;          /* the synthetic ticks' period: TICK_NSEC of the recording kernel, or tick_ms */
        ReplayTickSource tick_source;
        unsigned tick_hz;          /* REPLAY_TICK_MEASURED: the HZ measured */
} ReplayStats;

/*
 * Replays @in (named @name in messages) through a fresh engine, writing changes to @out. Synthetic ticks are
 * generated from the trace's own clock on a grid of the tick while some CPU is busy, as the live daemon's
 * timer does (and as the kernel ticks only busy CPUs); once the model has settled in a long gap between two
 * events, the rest of the gap's ticks are skipped (replay.c), so a gap of any length costs O(1).
 *
 * The tick: cfg->tick_usec when tick_ms is a number. With tick_ms = auto (0) the recording kernel's, measured
 * from the trace's sched_stat_runtime spacing (include/model.h) in its first REPLAY_LOOKAHEAD_LINES
 * lines (or .dat records), read ahead and then replayed, so that a pipe (`-`) works as a file does; else
 * CONFIG_TICK_DEFAULT_USEC. The summary says which (and @ret_stats' tick_*).
 *
 * Returns -EINVAL with a malloc'd message in @ret_error for a topology without policies, and with
 * "NAME:LINE: reason" for malformed input: a line not in the format above, an event whose CPU (or target_cpu=,
 * orig_cpu=, dest_cpu=) is not a CPU of the topology, or time going backwards by more than a second. Events
 * less far behind the latest one are a reordering of perf's per-CPU buffers: applied at the latest time (as
 * engine_event() does) and counted in @ret_stats' late_events (the caller warns).
 */

typedef enum ReplayFlags {
        /*
         * --print-util: after each event (and synthetic tick), one line per CPU whose signals changed:
         *   t=<ns> cpu=<n> util=<cfs util_avg> util_est=<n> runnable=<n> rt=<n> eff=<utilisation the governor used>
         */
        REPLAY_PRINT_UTIL = 1 << 0,
        /* --print-decisions: decision lines as decision_print_details() prints them (reason=, deferred=). */
        REPLAY_PRINT_REASON = 1 << 1,
        /*
         * --csv: CSV on @out instead of the lines. A header, then one row per decision:
         *   time_s,policy,freq_khz,util,cpu,kind,reason
         *   1.700200000,1,2000000,1024,0,remote,demand
         * With REPLAY_PRINT_UTIL a first column `record` (decision|util) and the signals at the end:
         *   record,time_s,policy,freq_khz,util,cpu,kind,reason,util_est,runnable,rt,eff
         *   decision,1.700200000,1,2000000,1024,0,remote,demand,,,,
         *   util,1.700200000,1,,13,1,,,1036,13,0,1024
         * where a util row's policy is its CPU's (first CPU), util its util_avg, and freq_khz, kind and reason
         * are empty. time_s is the trace's time in seconds with nine decimals.
         */
        REPLAY_CSV = 1 << 2,
        /*
         * The table for a person (replay-report.h) instead of the key=value lines; REPLAY_PRINT_UTIL,
         * REPLAY_PRINT_REASON and REPLAY_CSV print theirs instead (scripts read them).
         */
        REPLAY_TABLE = 1 << 3,
        /* With REPLAY_TABLE: the trace's time, not the time since its first event. */
        REPLAY_ABSOLUTE_TIME = 1 << 4,
        /*
         * The summary at the end (replay-report.h): on @out after the table, else on stderr, so that the
         * key=value lines and the CSV stay what scripts read (as the kernel comparison goes beside a CSV).
         */
        REPLAY_SUMMARY = 1 << 5,
} ReplayFlags;

/*
 * The stdio buffer worth giving a trace file: a `perf script` trace runs to gigabytes, and reading it 4 KiB
 * (st_blksize) at a time costs about a fifth of a replay in read() calls (issue #12).
 */
#define REPLAY_READ_BUFFER_SIZE (64U * 1024)

/*
 * How far tick_ms = auto reads ahead to measure the tick: lines of a text trace (at most
 * REPLAY_LOOKAHEAD_BYTES of them, kept in memory until replayed) or records of a .dat (a first pass over
 * them; a .dat is a file). The measure is decided well before (TICK_ESTIMATE_GAPS) in a trace that records
 * sched_stat_runtime: its running tasks report every tick.
 */
#define REPLAY_LOOKAHEAD_LINES 65536U
#define REPLAY_LOOKAHEAD_BYTES (16U * 1024 * 1024)

int replay_run(FILE *in, const char *name, const Topology *topo, const Config *cfg, ReplayFlags flags, FILE *out,
               ReplayStats *ret_stats, char **ret_error);
