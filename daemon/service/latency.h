/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The daemon's reaction latency, from a scheduler event to the scaling_setspeed write it caused, as a log2
 * histogram: bucket i counts [2^i, 2^(i+1)) µs, bucket 0 also what is below 1 µs, the last bucket everything
 * above. The manager records (manager.c on_decision()); the bus shows it (ReactionLatency*), `schedfreqctl
 * metrics` turns it into an OpenMetrics histogram, the exit statistics print it. Pure: no clock, no I/O.
 */

#include <stdint.h>

#define LATENCY_BUCKETS 24

typedef struct LatencyStats {
        uint64_t count;
        uint64_t buckets[LATENCY_BUCKETS];
        uint64_t max_ns;
        uint64_t sum_ns;
} LatencyStats;

/* One event-to-write latency of @latency_ns. */
void latency_record(LatencyStats *s, uint64_t latency_ns);

/* Quantile (permille) of the recorded latencies, as the upper bound in µs of its bucket; 0 when none. */
uint64_t latency_quantile_usec(const LatencyStats *s, unsigned permille);
