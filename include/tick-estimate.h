/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The tick length of the kernel that recorded a trace, measured from the trace (replay: a trace may come from
 * another machine, whose CONFIG_HZ we cannot read). A running CFS task reports sched_stat_runtime at every tick
 * (task_tick_fair() → entity_tick() → update_curr(), kernel/sched/fair.c), with runtime= the time it ran since
 * its last report. So two consecutive reports of one task on one CPU whose second says it ran (nearly) the whole
 * time between them are one tick apart, unless something else called update_curr() in between (an enqueue on
 * that runqueue, a wake-up preemption check): then it ran less than the gap since its last report, and the gap is
 * not counted. Each counted gap votes for the nearest of the standard tick lengths (kernel/Kconfig.hz: HZ=100,
 * 250, 300, 1000) within a tenth of it; the result is the one with a clear majority of enough votes.
 *
 * Pure: events in, HZ out.
 */

#include <stdbool.h>
#include <stdint.h>

#include "macro.h"
#include "sched-event.h"

/* Counted gaps after which the estimate is decided (tick_estimate_enough()): a reader may stop there. */
#define TICK_ESTIMATE_GAPS 64
/* The fewest votes a result needs: below that, too few sched_stat_runtime reports to tell. */
#define TICK_ESTIMATE_VOTES_MIN 16

typedef struct TickEstimate TickEstimate;

int tick_estimate_new(TickEstimate **ret);
TickEstimate *tick_estimate_free(TickEstimate *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(TickEstimate *, tick_estimate_free);

/* One event of the trace, in time order (events of CPUs outside 0..CPU_SETSIZE-1 are ignored). */
void tick_estimate_event(TickEstimate *t, const SchedEvent *ev);

/* TICK_ESTIMATE_GAPS gaps were counted: more events would not change a clear result. */
bool tick_estimate_enough(const TickEstimate *t);

typedef struct TickEstimateResult {
        unsigned hz;              /* the winner, 0 when undecided */
        unsigned votes;           /* its votes (undecided: the leader's) */
        unsigned gaps;            /* every counted gap */
} TickEstimateResult;

/*
 * The estimate so far. Returns the HZ (> 0) with *@ret filled, or -ENODATA when fewer than
 * TICK_ESTIMATE_VOTES_MIN gaps voted for the leader, -ENOTUNIQ when the leader has no more than half the votes.
 */
int tick_estimate_result(const TickEstimate *t, TickEstimateResult *ret);
