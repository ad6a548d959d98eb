/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util-est.c: util_est_update() and post_init_entity_util_avg() of kernel/sched/fair.c (6.8+). Pure. */

#include "util-est.h"

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

unsigned util_initial(unsigned cpu_util_avg, unsigned cpu_scale) {
        /*
         * post_init_entity_util_avg(): cap = (cpu_scale - cfs_rq->avg.util_avg) / 2; the task gets
         * cfs_rq util_avg x se weight / (cfs_rq load_avg + 1) clamped to cap, or cap on an idle cfs_rq. We do
         * not model load_avg; with nice-0 tasks util_avg x weight / load_avg is the average util per queued
         * task, which exceeds cap in the common case, so we take cap (the kernel comment's 512, 256, 128...).
         */
        if (cpu_util_avg >= cpu_scale)
                return 0;
        return (cpu_scale - cpu_util_avg) / 2;
}
