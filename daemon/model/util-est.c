/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util-est.c: util_est_update() and post_init_entity_util_avg() of kernel/sched/fair.c (6.8+). Pure. */

#include <stdint.h>

#include "macro.h"
#include "util-est.h"

#define NICE_0_LOAD 1024u /* scale_load_down(NICE_0_LOAD): se_weight() of a nice-0 task */

unsigned util_est_update(unsigned ewma, bool unchanged, unsigned dequeued, unsigned runnable, unsigned cpu_scale,
                         bool *ret_stored) {
        unsigned last_ewma_diff;

        /* "If the PELT values haven't changed since enqueue time, skip the util_est update." */
        *ret_stored = false;
        if (unchanged)
                return ewma;

        *ret_stored = true;
        /* Fast-up: "Reset EWMA on utilization increases, the moving average is used only to smooth
         * utilization decreases." */
        if (ewma <= dequeued)
                return dequeued;

        /* "Skip update of task's estimated utilization when its members are already ~1% close" */
        last_ewma_diff = ewma - dequeued;
        if (last_ewma_diff < UTIL_EST_MARGIN)
                return ewma;

        /* "skip updates if we cannot grant there is idle time in this CPU" (returns without storing) */
        if (dequeued > cpu_scale) {
                *ret_stored = false;
                return ewma;
        }

        /* 6.8+: "skip updates of EWMA if we cannot grant that thread got all CPU time it wanted" */
        if (dequeued + UTIL_EST_MARGIN < runnable)
                return ewma;

        /* ewma(t) = w x dequeued + (1 - w) x ewma(t-1), w = 1/4, in the kernel's integer steps */
        return ((ewma << UTIL_EST_WEIGHT_SHIFT) - last_ewma_diff) >> UTIL_EST_WEIGHT_SHIFT;
}

unsigned util_initial(unsigned cpu_util_avg, unsigned cpu_load_avg, unsigned cpu_scale) {
        /*
         * post_init_entity_util_avg(): cap = (cpu_scale - cfs_rq->avg.util_avg) / 2; the task gets
         * cfs_rq util_avg x se weight / (cfs_rq load_avg + 1) clamped to cap, or cap on a cfs_rq without util
         * (the kernel comment's 512, 256, 128...). The load counts each new task at its full weight
         * (init_entity_runnable_average()) until it decays: after a fork or two it is well above the util, and
         * the next child gets less than cap (a storm's, on its parent's CPU: 252 where cap was 455).
         */
        unsigned cap;

        if (cpu_util_avg >= cpu_scale)
                return 0;
        cap = (cpu_scale - cpu_util_avg) / 2;
        if (cpu_util_avg == 0)
                return cap;
        return (unsigned) MIN((uint64_t) cpu_util_avg * NICE_0_LOAD / ((uint64_t) cpu_load_avg + 1), (uint64_t) cap);
}
