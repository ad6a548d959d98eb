/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * util_est and a new task's initial utilisation, as kernel/sched/fair.c (6.8+) computes them. Pure.
 *
 * 6.8 ("sched/fair: Simplify util_est", "Remove SCHED_FEAT(UTIL_EST_FASTUP)", reference §2.2) reduced
 * util_est to one value per task, the ewma, and made fast-up permanent; we follow 6.8+, not the
 * {enqueued, ewma} pair of 4.17-6.7 (4.14 had no util_est at all).
 */

#include <stdbool.h>

#define UTIL_EST_WEIGHT_SHIFT 2           /* w = 1/4, kernel/sched/fair.c */
#define UTIL_EST_MARGIN (1024 / 100)      /* SCHED_CAPACITY_SCALE / 100, kernel/sched/fair.c */

/*
 * util_est_update() at a dequeue-to-sleep: @ewma is the task's util_est, @dequeued its util_avg now,
 * @runnable its runnable_avg, @cpu_scale its CPU's capacity. @unchanged is UTIL_AVG_UNCHANGED: PELT has not
 * been recomputed since the last store (then nothing changes). Returns the new ewma; *@ret_stored tells
 * whether the kernel would store it (and re-arm UTIL_AVG_UNCHANGED).
 */
unsigned util_est_update(unsigned ewma, bool unchanged, unsigned dequeued, unsigned runnable, unsigned cpu_scale,
                         bool *ret_stored);

/*
 * post_init_entity_util_avg(): a new task (nice 0) on a cfs_rq whose util_avg is @cpu_util_avg and load_avg
 * @cpu_load_avg gets util x 1024 / (load + 1), at most half the spare capacity (512 on an empty 1024 CPU).
 */
unsigned util_initial(unsigned cpu_util_avg, unsigned cpu_load_avg, unsigned cpu_scale);
