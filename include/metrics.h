/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * An OpenMetrics 1.0 text writer (the specification: github.com/OpenObservability/OpenMetrics,
 * specification/OpenMetrics.md), for `schedfreqctl metrics`. It knows the syntax, nothing of schedfreqd: the
 * caller opens a metric family (its TYPE, UNIT and HELP lines), writes that family's samples, opens the next,
 * and ends with metrics_finish() ("# EOF"). The writer refuses, with -EINVAL, what would make the text invalid
 * or ambiguous for a reader: a sample outside a family, a sample of another type than its family's, a bad
 * name, a unit that is not the name's suffix, a family name used twice or ending in a sample suffix, a
 * histogram whose bounds do not ascend, anything after "# EOF". The first error sticks: every later call
 * returns it, and metrics_finish() too, so a caller may check once at the end.
 *
 * What it writes: counters as NAME_total, histograms as cumulative NAME_bucket{le="..."} lines ending with
 * le="+Inf", then NAME_count (equal to the +Inf bucket) and NAME_sum; "le" values and other floating-point
 * numbers in the canonical rendering of the specification (Go's %g: "2e-06", "0.000128", "1.0", "1e+06").
 * Label values and HELP text are escaped (\\, \", \n).
 *
 * Only gauges, counters and histograms: node_exporter's textfile collector, the usual way such a file reaches
 * Prometheus, reads it with the older Prometheus text parser (format 0.0.4), which rejects the whole file on
 * an "info" or "stateset" TYPE; it skips the UNIT and EOF lines as comments. For the same reason a HELP text
 * should hold no double quote: 0.0.4 knows no \" escape there, and OpenMetrics requires it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum MetricType {
        METRIC_GAUGE,
        METRIC_COUNTER,
        METRIC_HISTOGRAM,
        _METRIC_TYPE_MAX,
} MetricType;

typedef struct MetricLabel {
        const char *name;
        const char *value;
} MetricLabel;

/* A sample's value: an integer (written as one) or a floating-point number (canonical rendering). */
typedef struct MetricValue {
        bool is_double;
        uint64_t u;
        double d;
} MetricValue;

#define METRIC_U64(x) ((MetricValue) { .u = (x) })
#define METRIC_DOUBLE(x) ((MetricValue) { .is_double = true, .d = (x) })

/* Room for any number metrics_format_double() writes ("-1.2345678901234567e-308" and the NUL). */
#define METRIC_NUMBER_MAX 32

typedef struct MetricsWriter {
        FILE *f;
        char *family;        /* the open family's name (NULL before the first) */
        MetricType type;
        char **names;        /* every family name written, for uniqueness */
        size_t n_names;
        bool finished;       /* "# EOF" written */
        int error;           /* the first error, 0 = none */
} MetricsWriter;

const char *metric_type_to_string(MetricType t);

/* The canonical text of @v into @buf (METRIC_NUMBER_MAX bytes): "+Inf", "NaN", "1.0", "2e-06", "0.000128". */
void metrics_format_double(double v, char buf[static METRIC_NUMBER_MAX]);

void metrics_writer_init(MetricsWriter *w, FILE *f);
void metrics_writer_done(MetricsWriter *w);

/*
 * Opens the family @name: "# TYPE", "# UNIT" (when @unit is not NULL or empty: it must then end @name after an
 * underscore) and "# HELP" (when @help is not NULL). Samples follow with the functions below.
 */
int metrics_family(MetricsWriter *w, const char *name, MetricType type, const char *unit, const char *help);

/* One gauge sample: NAME{labels} value. */
int metrics_gauge(MetricsWriter *w, const MetricLabel *labels, size_t n_labels, MetricValue v);

/* One counter sample: NAME_total{labels} value (never negative or NaN). */
int metrics_counter(MetricsWriter *w, const MetricLabel *labels, size_t n_labels, MetricValue v);

/*
 * One histogram: @counts[i] (not cumulative) counts the values <= @upper_bounds[i] and above the previous
 * bound; the bounds ascend strictly and are not NaN nor negative. Written as cumulative buckets; when the last
 * bound is not +Inf, an le="+Inf" bucket with the total is added. Then NAME_count (the total) and, when @sum is
 * not NULL, NAME_sum (not negative nor NaN).
 */
int metrics_histogram(MetricsWriter *w, const MetricLabel *labels, size_t n_labels, const double *upper_bounds,
                      const uint64_t *counts, size_t n_buckets, const double *sum);

/* "# EOF", then flushes. Returns the first error of any call (-EIO when writing failed). */
int metrics_finish(MetricsWriter *w);
