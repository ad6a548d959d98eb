/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The one clock: CLOCK_MONOTONIC, which perf samples use (perf_event_attr.clockid, set in perf-events.c) and
 * the emulator's write log stamps. Never CLOCK_REALTIME for intervals: it jumps.
 */

#include <stdint.h>
#include <time.h>

#define NSEC_PER_USEC UINT64_C(1000)
#define NSEC_PER_SEC UINT64_C(1000000000)
#define USEC_PER_SEC UINT64_C(1000000)

static inline uint64_t monotonic_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

static inline uint64_t monotonic_usec(void) {
        return monotonic_ns() / NSEC_PER_USEC;
}
