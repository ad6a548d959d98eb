/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "latency.h"
#include "test.h"

/* The bucket that one latency of @ns lands in. */
static int bucket_of(uint64_t ns) {
        LatencyStats s = {};

        latency_record(&s, ns);
        for (unsigned i = 0; i < LATENCY_BUCKETS; i++)
                if (s.buckets[i] == 1)
                        return (int) i;
        return -1;
}

TEST(bucket_boundaries) {
        /* Bucket 0: below 2 µs, sub-microsecond included. */
        ASSERT_EQ(bucket_of(0), 0);
        ASSERT_EQ(bucket_of(999), 0);
        ASSERT_EQ(bucket_of(1999), 0);
        /* Bucket i >= 1: [2^i, 2^(i+1)) µs. */
        ASSERT_EQ(bucket_of(2000), 1);
        ASSERT_EQ(bucket_of(3999), 1);
        ASSERT_EQ(bucket_of(4000), 2);
        ASSERT_EQ(bucket_of(1023999), 9);
        ASSERT_EQ(bucket_of(1024000), 10);
        /* The last bucket holds everything above. */
        ASSERT_EQ(bucket_of((UINT64_C(1) << (LATENCY_BUCKETS - 1)) * 1000 - 1), LATENCY_BUCKETS - 2);
        ASSERT_EQ(bucket_of((UINT64_C(1) << (LATENCY_BUCKETS - 1)) * 1000), LATENCY_BUCKETS - 1);
        ASSERT_EQ(bucket_of(UINT64_C(3600) * 1000 * 1000 * 1000), LATENCY_BUCKETS - 1);
        ASSERT_EQ(bucket_of(UINT64_MAX), LATENCY_BUCKETS - 1);
}

TEST(quantile_empty) {
        LatencyStats s = {};

        ASSERT_U64_EQ(latency_quantile_usec(&s, 0), 0);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 500), 0);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 990), 0);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 1000), 0);
}

TEST(quantile_is_bucket_upper_bound) {
        LatencyStats s = {};

        /* 99 samples at 10 µs (bucket 3: [8, 16) µs), one at 1 ms (bucket 9: [512, 1024) µs). */
        for (unsigned i = 0; i < 99; i++)
                latency_record(&s, 10 * 1000);
        latency_record(&s, 1000 * 1000);

        ASSERT_U64_EQ(s.count, 100);
        ASSERT_U64_EQ(s.buckets[3], 99);
        ASSERT_U64_EQ(s.buckets[9], 1);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 1), 16);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 500), 16);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 990), 16);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 991), 1024);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 1000), 1024);

        /* One sample: every quantile is its bucket. */
        s = (LatencyStats) {};
        latency_record(&s, 500);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 500), 2);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 1000), 2);

        /* The last bucket's bound. */
        s = (LatencyStats) {};
        latency_record(&s, UINT64_C(60) * 1000 * 1000 * 1000);
        ASSERT_U64_EQ(latency_quantile_usec(&s, 990), UINT64_C(2) << (LATENCY_BUCKETS - 1));
}

TEST(max_and_sum) {
        LatencyStats s = {};

        latency_record(&s, 1500);
        latency_record(&s, 250000);
        latency_record(&s, 40000);
        latency_record(&s, 0);
        ASSERT_U64_EQ(s.count, 4);
        ASSERT_U64_EQ(s.max_ns, 250000);
        ASSERT_U64_EQ(s.sum_ns, 1500 + 250000 + 40000);
        /* Nanoseconds are kept: what the buckets round away, max and sum do not. */
        ASSERT_U64_EQ(s.buckets[0], 2);
        ASSERT_U64_EQ(s.buckets[7], 1);
        ASSERT_U64_EQ(s.buckets[5], 1);
}

DEFINE_TEST_MAIN
