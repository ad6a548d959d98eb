/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What `schedfreqd replay` shows a person (issue #24 item 4), read like `perf sched timehist`: one table row per
 * decision, at the time since the trace's first event (or the trace's own time), with the task whose event
 * caused it, then a summary of the whole trace. The key=value lines and the CSV (replay.h) are for scripts and
 * do not come from here.
 *
 * The table (replay_report_print_header(), replay_report_print_decision()):
 *          time  cpu  policy  freq MHz  util  kind      reason  task
 *   -----------  ---  ------  --------  ----  --------  ------  ------------------
 *      0.044000    0       0  1000.000   208  local     demand  hog[1234]
 * kind is local or remote, or deferred for a change that applied what a remote event had to leave (the policy
 * forbids remote updates: it waited for an event on one of its own CPUs).
 *
 * The summary (replay_report_print_summary()), after the last line:
 *   decisions by kind (local, remote, deferred: each decision counted once, as its row's kind says); the waits
 *   of the deferred ones (count, p50, max); the tick the replay ran on and where it came from (tick_ms, or
 *   measured from the trace: replay.h); and per policy the time at each frequency, from the trace's first
 *   event to its last, the policy's starting frequency (the topology's cur_khz) counted until its first
 *   decision.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "governor.h"
#include "macro.h"
#include "topology.h"

typedef struct ReplayReport ReplayReport;

/* What a decision row is printed as. */
typedef enum ReplayRowKind {
        REPLAY_ROW_LOCAL,
        REPLAY_ROW_REMOTE,
        REPLAY_ROW_DEFERRED,
        _REPLAY_ROW_KIND_MAX,
} ReplayRowKind;

/* The summary's figures, for tests. */
typedef struct ReplayReportCounts {
        uint64_t decisions;
        uint64_t by_kind[_REPLAY_ROW_KIND_MAX];
        uint64_t deferred_p50_ns;     /* of the deferred decisions' waits; 0 without any */
        uint64_t deferred_max_ns;
} ReplayReportCounts;

int replay_report_new(const Topology *topo, ReplayReport **ret);
ReplayReport *replay_report_free(ReplayReport *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(ReplayReport *, replay_report_free);

/*
 * The trace's first event is at @t_ns, when policy @policy_index runs at @khz (the engine's starting frequency):
 * called for each policy at that time; the first call starts the report.
 */
void replay_report_start(ReplayReport *r, unsigned policy_index, uint64_t t_ns, uint32_t khz);
bool replay_report_started(const ReplayReport *r);
/* Accounts @d (after replay_report_start()). Returns 0 or -ENOMEM. */
int replay_report_decision(ReplayReport *r, const Decision *d);

ReplayRowKind replay_row_kind(const Decision *d);
const char *replay_row_kind_to_string(ReplayRowKind k);

void replay_report_print_header(FILE *f);
/*
 * One row for @d. @absolute: the trace's time instead of the time since the first event. @comm: the name the
 * trace gave @d->pid (NULL: none seen; the row says "?[PID]"); a decision without a task (pid 0: an idle CPU's)
 * shows "-".
 */
void replay_report_print_decision(const ReplayReport *r, FILE *f, const Decision *d, bool absolute,
                                  const char *comm);

/* The summary's tick line, e.g. "1 ms (HZ=1000 from 64 of 64 sched_stat_runtime gaps)" (copied; NULL: none). */
void replay_report_set_tick(ReplayReport *r, const char *text);

/* Closes the accounting at @end_ns, the trace's last time (idempotent for the same @end_ns). */
void replay_report_finish(ReplayReport *r, uint64_t end_ns);
int replay_report_counts(const ReplayReport *r, ReplayReportCounts *ret);
/* The summary, 80 columns wide at most (after replay_report_finish()). @events: the trace's modelled events. */
int replay_report_print_summary(const ReplayReport *r, FILE *f, uint64_t events);
