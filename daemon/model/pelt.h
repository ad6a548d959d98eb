/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * PELT (per-entity load tracking), the kernel's utilisation signal, in the kernel's own integer arithmetic
 * (kernel/sched/pelt.c: ___update_load_sum(), accumulate_sum(), decay_load(); the table and constants from
 * kernel/sched/sched-pelt.h and kernel/sched/pelt.h). Pure: no clock reads, every call carries its time.
 *
 * Time: the ns clock >> 10 ("1024 ns ~ 1 us"); a period is 1024 of those (1,048,576 ns); y^32 = 1/2.
 * util_avg is on the 0..1024 capacity scale and is only recomputed when a period boundary is crossed, as in
 * the kernel: between boundaries it is stale.
 *
 * Invariance is not done here: as in v5.1+ the caller passes a PELT clock (rq_clock_pelt(), kernel/sched/pelt.h)
 * that runs slower than wall time while the CPU runs below its maximum frequency or capacity and catches up
 * when it goes idle. demand.c keeps that clock per CPU (see PeltClock there).
 *
 * Times are nanoseconds throughout: the ns clock is shifted to 1024 ns units only inside the step, and the
 * remainder below 1024 ns is carried to the next update (last_update_time advances by whole units), so the
 * result does not depend on how often the signal is updated.
 */

#include <stdbool.h>
#include <stdint.h>

#define PELT_SCALE_SHIFT 10                           /* SCHED_CAPACITY_SHIFT */
#define PELT_SCALE (1u << PELT_SCALE_SHIFT)           /* SCHED_CAPACITY_SCALE */
#define PELT_PERIOD 1024u                             /* in units of 1024 ns */
#define PELT_PERIOD_NS (UINT64_C(1024) << 10)         /* 1,048,576 ns */
#define LOAD_AVG_PERIOD 32                            /* y^LOAD_AVG_PERIOD = 1/2 (sched-pelt.h) */
#define LOAD_AVG_MAX 47742                            /* 1024 x sum(y^n), kernel integer arithmetic (sched-pelt.h) */
#define PELT_MIN_DIVIDER (LOAD_AVG_MAX - 1024)        /* kernel/sched/pelt.h */

typedef struct PeltSignal {
        uint64_t last_update_time_ns;  /* advanced in whole 1024 ns units; the sub-unit remainder carries over */
        uint32_t period_contrib;       /* 0..1023: the part of the current period already accounted */
        uint64_t util_sum;             /* decayed sum of weighted contributions, << 10 (util_sum or runnable_sum) */
        uint32_t util_avg;             /* util_sum / divider: 0..1024 for util, 0..1024 x nr for runnable */
} PeltSignal;

/* A zero signal whose history starts at @now_ns. A zeroed struct is the same signal starting at time 0. */
void pelt_reset(PeltSignal *s, uint64_t now_ns);

/* @val x y^@n (decay_load()): 0 beyond 63 half-lives. */
uint64_t pelt_decay_load(uint64_t val, uint64_t n);

/* get_pelt_divider(): PELT_MIN_DIVIDER + period_contrib, what util_sum is divided by. */
uint32_t pelt_divider(const PeltSignal *s);

/* pelt_update() of @delta 1024 ns units that reach or cross a period boundary (pelt.c). */
bool pelt_update_periods(PeltSignal *s, uint64_t delta, unsigned weight);

/*
 * Advances @s to @now_ns (a PELT clock: rq_clock_pelt()); the time since the last update contributes @weight
 * (0: nothing, 1: running, n: n runnable tasks for a cfs_rq's runnable_sum). Returns true when a period
 * boundary was crossed and the average was recomputed (the kernel's "decayed"). A time before the last update
 * only moves last_update_time back, as the kernel does.
 *
 * ___update_load_sum() and accumulate_sum() (kernel/sched/pelt.c) up to the period boundary, inline: the model
 * updates ~15 signals per event, most of them a few µs on, inside their period (replay's throughput, issue #25).
 * Work in 1024 ns units and carry the sub-unit remainder forward by advancing last_update_time only by whole
 * units. Without a boundary crossed accumulate_sum() adds the delta itself (contrib = delta) and decays nothing.
 */
static inline bool pelt_update(PeltSignal *s, uint64_t now_ns, unsigned weight) {
        uint64_t delta;

        if (now_ns < s->last_update_time_ns) {
                s->last_update_time_ns = now_ns;
                return false;
        }
        delta = (now_ns - s->last_update_time_ns) >> 10;
        if (delta == 0)
                return false;
        if (delta + s->period_contrib >= PELT_PERIOD)
                return pelt_update_periods(s, delta, weight);
        s->last_update_time_ns += delta << 10;
        s->period_contrib += (uint32_t) delta;
        if (weight > 0)
                s->util_sum += ((uint64_t) weight * delta) << PELT_SCALE_SHIFT;
        return false;
}

/*
 * The same step for a signal that is not contributing (blocked, idle) over a gap of any length: pure decay.
 * O(1) in the gap, like decay_load() itself.
 */
static inline bool pelt_decay(PeltSignal *s, uint64_t now_ns) {
        return pelt_update(s, now_ns, 0);
}

/*
 * Moving a task's utilisation in and out of a CPU signal (kernel/sched/fair.c). Both signals should have
 * been updated to the same time first.
 *
 * pelt_attach(): attach_entity_load_avg(): aligns @se's decay window on @cpu's, recomputes se->util_sum from
 * se->util_avg for the new window, and adds it to @cpu.
 * pelt_detach(): detach_entity_load_avg(): subtracts @se's util_avg and util_sum, clamping at 0.
 * pelt_remove(): the lazy "removed" path of update_cfs_rq_load_avg() for a task that left (migration on
 * wake-up, exit): subtracts @util_avg and @util_avg x divider.
 * Both subtractions keep util_sum >= util_avg x PELT_MIN_DIVIDER, so rounding can't empty util_sum while
 * util_avg is still positive.
 */
void pelt_attach(PeltSignal *cpu, PeltSignal *se);
void pelt_detach(PeltSignal *cpu, const PeltSignal *se);
void pelt_remove(PeltSignal *cpu, uint32_t util_avg);

/*
 * update_tg_cfs_util() / update_tg_cfs_runnable() (kernel/sched/fair.c), when a task group's entity @se on the
 * cfs_rq @cfs is updated with a change pending in the group's own cfs_rq (@group_avg: that cfs_rq's average):
 * the entity takes the group's average, rebuilt for its window (aligned with @cfs's), and @cfs gets the difference.
 */
void pelt_propagate(PeltSignal *cfs, PeltSignal *se, uint32_t group_avg);
