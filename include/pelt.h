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
 * Invariance is the 4.14 way (accumulate_sum() of v4.14): each contribution of running time is scaled by
 * cap_scale(contrib, freq_scale) and then multiplied by cpu_scale, while decay runs on wall time. So running
 * time counts as freq_scale/1024 x cpu_scale/1024 of wall time and an always-running CPU settles at about
 * freq_scale x cpu_scale / 1024. (v5.1+ scales the clock instead, clock_pelt in kernel/sched/pelt.h; with it
 * an always-running CPU reaches 1024 at any frequency, which is not what a governor wants to read.)
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
        uint64_t util_sum;             /* decayed sum of (scaled) running contributions, << 10 */
        uint32_t util_avg;             /* util_sum / divider, 0..1024 */
} PeltSignal;

/* A zero signal whose history starts at @now_ns. A zeroed struct is the same signal starting at time 0. */
void pelt_reset(PeltSignal *s, uint64_t now_ns);

/* @val x y^@n (decay_load()): 0 beyond 63 half-lives. */
uint64_t pelt_decay_load(uint64_t val, uint64_t n);

/* get_pelt_divider(): PELT_MIN_DIVIDER + period_contrib, what util_sum is divided by. */
uint32_t pelt_divider(const PeltSignal *s);

/*
 * Advances @s to @now_ns; the time since the last update counts as running when @running.
 * @freq_scale and @cpu_scale are 0..1024 (cur/max frequency and the CPU's capacity; 1024 = no scaling).
 * Returns true when a period boundary was crossed and util_avg was recomputed (the kernel's "decayed").
 * A time before the last update only moves last_update_time back, as the kernel does.
 */
bool pelt_update(PeltSignal *s, uint64_t now_ns, bool running, unsigned freq_scale, unsigned cpu_scale);

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
