/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latency.c: the reaction-latency histogram (daemon/service/latency.h). Pure.
 */

#include "latency.h"
#include "macro.h"

void latency_record(LatencyStats *s, uint64_t latency_ns) {
        uint64_t usec = latency_ns / 1000;
        unsigned bucket = 0;

        while (usec > 1 && bucket < LATENCY_BUCKETS - 1) {
                usec >>= 1;
                bucket++;
        }
        s->buckets[bucket]++;
        s->count++;
        s->sum_ns += latency_ns;
        s->max_ns = MAX(s->max_ns, latency_ns);
}

/* Upper bound (µs) of the bucket holding the @permille-th sample. */
uint64_t latency_quantile_usec(const LatencyStats *s, unsigned permille) {
        uint64_t want = (s->count * permille + 999) / 1000, seen = 0;

        for (unsigned i = 0; i < LATENCY_BUCKETS; i++) {
                seen += s->buckets[i];
                if (seen >= want && want > 0)
                        return UINT64_C(2) << i;
        }
        return 0;
}
