/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>

#include "macro.h"
#include "metrics.h"
#include "test.h"

/* A writer on a memory stream; text() returns what it wrote so far. */
typedef struct Out {
        char *buf;
        size_t size;
        FILE *f;
        MetricsWriter w;
} Out;

static int out_open(Out *o) {
        *o = (Out) {};
        o->f = open_memstream(&o->buf, &o->size);
        if (!o->f)
                return -errno;
        metrics_writer_init(&o->w, o->f);
        return 0;
}

static const char *out_text(Out *o) {
        (void) fflush(o->f);
        return o->buf;
}

static void out_close(Out *o) {
        metrics_writer_done(&o->w);
        if (o->f)
                (void) fclose(o->f);
        free(o->buf);
        *o = (Out) {};
}

static const char *fmt(double v) {
        static char buf[METRIC_NUMBER_MAX];

        metrics_format_double(v, buf);
        return buf;
}

TEST(canonical_numbers) {
        /* The specification's examples ("Considerations: Canonical Numbers"), and the latency buckets' bounds. */
        ASSERT_STREQ(fmt(0.0), "0.0");
        ASSERT_STREQ(fmt(0.001), "0.001");
        ASSERT_STREQ(fmt(0.95), "0.95");
        ASSERT_STREQ(fmt(0.999), "0.999");
        ASSERT_STREQ(fmt(1.0), "1.0");
        ASSERT_STREQ(fmt(1.7), "1.7");
        ASSERT_STREQ(fmt(10.0), "10.0");
        ASSERT_STREQ(fmt(1e-10), "1e-10");
        ASSERT_STREQ(fmt(1e-9), "1e-09");
        ASSERT_STREQ(fmt(1e-5), "1e-05");
        ASSERT_STREQ(fmt(0.0001), "0.0001");
        ASSERT_STREQ(fmt(100000.0), "100000.0");
        ASSERT_STREQ(fmt(1e6), "1e+06");
        ASSERT_STREQ(fmt(1e10), "1e+10");
        ASSERT_STREQ(fmt(1.1e23), "1.1e+23");
        ASSERT_STREQ(fmt(2e-6), "2e-06");
        ASSERT_STREQ(fmt(1.6e-5), "1.6e-05");
        ASSERT_STREQ(fmt(0.000128), "0.000128");
        ASSERT_STREQ(fmt(8.388608), "8.388608");
        ASSERT_STREQ(fmt(0.1 + 0.2), "0.30000000000000004"); /* 17 digits where 16 do not read back */
        ASSERT_STREQ(fmt(-2.5), "-2.5");
        ASSERT_STREQ(fmt(INFINITY), "+Inf");
        ASSERT_STREQ(fmt(-INFINITY), "-Inf");
        ASSERT_STREQ(fmt(NAN), "NaN");
}

TEST(families_and_samples) {
        Out o;

        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x_frequency_hertz", METRIC_GAUGE, "hertz", "Set now, a\\b\nc."));
        ASSERT_OK(metrics_gauge(&o.w, (MetricLabel[]) { { "policy", "0" } }, 1, METRIC_U64(2400000000)));
        ASSERT_OK(metrics_gauge(&o.w, (MetricLabel[]) { { "policy", "1" }, { "k", "a\"b\\c\nd" } }, 2,
                                METRIC_DOUBLE(0.5)));
        ASSERT_OK(metrics_family(&o.w, "x_events", METRIC_COUNTER, NULL, NULL));
        ASSERT_OK(metrics_counter(&o.w, NULL, 0, METRIC_U64(42)));
        ASSERT_OK(metrics_family(&o.w, "x_uptime_seconds", METRIC_GAUGE, "seconds", "Up."));
        ASSERT_OK(metrics_gauge(&o.w, NULL, 0, METRIC_DOUBLE(12.5)));
        ASSERT_OK(metrics_family(&o.w, "x_empty", METRIC_GAUGE, NULL, "No metric yet."));
        ASSERT_OK(metrics_finish(&o.w));
        ASSERT_STREQ(out_text(&o),
                     "# TYPE x_frequency_hertz gauge\n"
                     "# UNIT x_frequency_hertz hertz\n"
                     "# HELP x_frequency_hertz Set now, a\\\\b\\nc.\n"
                     "x_frequency_hertz{policy=\"0\"} 2400000000\n"
                     "x_frequency_hertz{policy=\"1\",k=\"a\\\"b\\\\c\\nd\"} 0.5\n"
                     "# TYPE x_events counter\n"
                     "x_events_total 42\n"
                     "# TYPE x_uptime_seconds gauge\n"
                     "# UNIT x_uptime_seconds seconds\n"
                     "# HELP x_uptime_seconds Up.\n"
                     "x_uptime_seconds 12.5\n"
                     "# TYPE x_empty gauge\n"
                     "# HELP x_empty No metric yet.\n"
                     "# EOF\n");
        out_close(&o);
}

TEST(histogram_is_cumulative_with_inf_count_and_sum) {
        static const double bounds[] = { 2e-6, 4e-6, 8e-6 };
        static const uint64_t counts[] = { 3, 0, 5 };
        static const double inf_bounds[] = { 0.5, INFINITY };
        static const uint64_t inf_counts[] = { 1, 2 };
        double sum = 3.5e-5;
        Out o;

        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x_latency_seconds", METRIC_HISTOGRAM, "seconds", NULL));
        /* Above the last bound: counted only in +Inf. */
        ASSERT_OK(metrics_histogram(&o.w, NULL, 0, bounds, counts, 3, &sum));
        ASSERT_OK(metrics_family(&o.w, "x_size", METRIC_HISTOGRAM, NULL, NULL));
        ASSERT_OK(metrics_histogram(&o.w, (MetricLabel[]) { { "a", "b" } }, 1, inf_bounds, inf_counts, 2, NULL));
        ASSERT_OK(metrics_finish(&o.w));
        ASSERT_STREQ(out_text(&o),
                     "# TYPE x_latency_seconds histogram\n"
                     "# UNIT x_latency_seconds seconds\n"
                     "x_latency_seconds_bucket{le=\"2e-06\"} 3\n"
                     "x_latency_seconds_bucket{le=\"4e-06\"} 3\n"
                     "x_latency_seconds_bucket{le=\"8e-06\"} 8\n"
                     "x_latency_seconds_bucket{le=\"+Inf\"} 8\n"
                     "x_latency_seconds_count 8\n"
                     "x_latency_seconds_sum 3.5e-05\n"
                     "# TYPE x_size histogram\n"
                     "x_size_bucket{a=\"b\",le=\"0.5\"} 1\n"
                     "x_size_bucket{a=\"b\",le=\"+Inf\"} 3\n"
                     "x_size_count{a=\"b\"} 3\n"
                     "# EOF\n");
        out_close(&o);
}

TEST(empty_histogram_has_inf_bucket) {
        Out o;

        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x_h", METRIC_HISTOGRAM, NULL, NULL));
        ASSERT_OK(metrics_histogram(&o.w, NULL, 0, NULL, NULL, 0, &(double) { 0 }));
        ASSERT_OK(metrics_finish(&o.w));
        ASSERT_STREQ(out_text(&o), "# TYPE x_h histogram\nx_h_bucket{le=\"+Inf\"} 0\nx_h_count 0\nx_h_sum 0.0\n# EOF\n");
        out_close(&o);
}

TEST(refuses_invalid_names_and_units) {
        static const char *const bad_names[] = { "", "1x", "_x", "x:y", "x-y", "x_total", "x_count", "x_sum",
                                                 "x_bucket", "x_created", "x_info", "x y" };
        Out o;

        for (size_t i = 0; i < ELEMENTSOF(bad_names); i++) {
                ASSERT_OK(out_open(&o));
                ASSERT_ERROR(metrics_family(&o.w, bad_names[i], METRIC_GAUGE, NULL, NULL), EINVAL);
                out_close(&o);
        }

        /* The unit must be the name's suffix after an underscore. */
        ASSERT_OK(out_open(&o));
        ASSERT_ERROR(metrics_family(&o.w, "x_seconds", METRIC_GAUGE, "hertz", NULL), EINVAL);
        out_close(&o);
        ASSERT_OK(out_open(&o));
        ASSERT_ERROR(metrics_family(&o.w, "xseconds", METRIC_GAUGE, "seconds", NULL), EINVAL);
        out_close(&o);
        ASSERT_OK(out_open(&o));
        ASSERT_ERROR(metrics_family(&o.w, "seconds", METRIC_GAUGE, "seconds", NULL), EINVAL);
        out_close(&o);
        /* A double quote in HELP: node_exporter's parser would reject its escape. */
        ASSERT_OK(out_open(&o));
        ASSERT_ERROR(metrics_family(&o.w, "x", METRIC_GAUGE, NULL, "a \"b\""), EINVAL);
        out_close(&o);
        ASSERT_OK(out_open(&o));
        ASSERT_ERROR(metrics_family(&o.w, "x", _METRIC_TYPE_MAX, NULL, NULL), EINVAL);
        out_close(&o);
}

TEST(refuses_bad_samples_and_sticks) {
        static const double down[] = { 1.0, 0.5 };
        static const double neg[] = { -1.0 };
        static const uint64_t two[] = { 1, 1 };
        Out o;

        /* A sample before any family. */
        ASSERT_OK(out_open(&o));
        ASSERT_ERROR(metrics_gauge(&o.w, NULL, 0, METRIC_U64(1)), EINVAL);
        /* The error sticks: a valid call and the finish report it. */
        ASSERT_ERROR(metrics_family(&o.w, "x", METRIC_GAUGE, NULL, NULL), EINVAL);
        ASSERT_ERROR(metrics_finish(&o.w), EINVAL);
        out_close(&o);

        /* A counter sample in a gauge family. */
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_GAUGE, NULL, NULL));
        ASSERT_ERROR(metrics_counter(&o.w, NULL, 0, METRIC_U64(1)), EINVAL);
        out_close(&o);

        /* Negative or NaN counters. */
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_COUNTER, NULL, NULL));
        ASSERT_ERROR(metrics_counter(&o.w, NULL, 0, METRIC_DOUBLE(-1)), EINVAL);
        out_close(&o);
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_COUNTER, NULL, NULL));
        ASSERT_ERROR(metrics_counter(&o.w, NULL, 0, METRIC_DOUBLE(NAN)), EINVAL);
        out_close(&o);

        /* The same family twice. */
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_GAUGE, NULL, NULL));
        ASSERT_OK(metrics_family(&o.w, "y", METRIC_GAUGE, NULL, NULL));
        ASSERT_ERROR(metrics_family(&o.w, "x", METRIC_GAUGE, NULL, NULL), EINVAL);
        out_close(&o);

        /* Labels: bad names, duplicates, the reserved le of a histogram. */
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_GAUGE, NULL, NULL));
        ASSERT_ERROR(metrics_gauge(&o.w, (MetricLabel[]) { { "a-b", "1" } }, 1, METRIC_U64(1)), EINVAL);
        out_close(&o);
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_GAUGE, NULL, NULL));
        ASSERT_ERROR(metrics_gauge(&o.w, (MetricLabel[]) { { "a", "1" }, { "a", "2" } }, 2, METRIC_U64(1)), EINVAL);
        out_close(&o);
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_HISTOGRAM, NULL, NULL));
        ASSERT_ERROR(metrics_histogram(&o.w, (MetricLabel[]) { { "le", "1" } }, 1, NULL, NULL, 0, NULL), EINVAL);
        out_close(&o);

        /* Histogram bounds that do not ascend, negative ones, a negative sum. */
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_HISTOGRAM, NULL, NULL));
        ASSERT_ERROR(metrics_histogram(&o.w, NULL, 0, down, two, 2, NULL), EINVAL);
        out_close(&o);
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_HISTOGRAM, NULL, NULL));
        ASSERT_ERROR(metrics_histogram(&o.w, NULL, 0, neg, two, 1, NULL), EINVAL);
        out_close(&o);
        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_HISTOGRAM, NULL, NULL));
        ASSERT_ERROR(metrics_histogram(&o.w, NULL, 0, NULL, NULL, 0, &(double) { -1 }), EINVAL);
        out_close(&o);
}

TEST(nothing_after_eof) {
        Out o;

        ASSERT_OK(out_open(&o));
        ASSERT_OK(metrics_family(&o.w, "x", METRIC_GAUGE, NULL, NULL));
        ASSERT_OK(metrics_finish(&o.w));
        ASSERT_ERROR(metrics_gauge(&o.w, NULL, 0, METRIC_U64(1)), EINVAL);
        ASSERT_ERROR(metrics_finish(&o.w), EINVAL);
        ASSERT_STREQ(out_text(&o), "# TYPE x gauge\n# EOF\n");
        out_close(&o);
}

DEFINE_TEST_MAIN
