/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.c: the OpenMetrics 1.0 text writer behind `schedfreqctl metrics` (include/metrics.h). Pure: it writes
 * to the FILE it is given and checks what the specification's ABNF and its "MUST"s ask of an exposer.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "metrics.h"

static const char *const metric_type_table[_METRIC_TYPE_MAX] = {
        [METRIC_GAUGE] = "gauge",
        [METRIC_COUNTER] = "counter",
        [METRIC_HISTOGRAM] = "histogram",
};

const char *metric_type_to_string(MetricType t) {
        return (unsigned) t < _METRIC_TYPE_MAX ? metric_type_table[t] : NULL;
}

/*
 * The specification's canonical numbers are Go's strconv.FormatFloat(v, 'g', -1, 64) with ".0" added when
 * there is neither a point nor an exponent: the fewest significant digits that read back as @v, in exponent
 * form when the decimal exponent is below -4 or at least 6 (Go's threshold for the shortest form), else in
 * plain form. glibc's printf rounds exactly, so the first precision whose text reads back is the shortest.
 */
void metrics_format_double(double v, char buf[static METRIC_NUMBER_MAX]) {
        char e[METRIC_NUMBER_MAX];
        int digits, exponent;

        if (isnan(v)) {
                strcpy(buf, "NaN");
                return;
        }
        if (isinf(v)) {
                strcpy(buf, v > 0 ? "+Inf" : "-Inf");
                return;
        }
        if (v == 0) {
                strcpy(buf, "0.0");
                return;
        }

        for (digits = 1; digits < 17; digits++) {
                (void) snprintf(e, sizeof(e), "%.*e", digits - 1, v);
                if (strtod(e, NULL) == v)
                        break;
        }
        (void) snprintf(e, sizeof(e), "%.*e", digits - 1, v);
        exponent = atoi(strchr(e, 'e') + 1);

        if (exponent < -4 || exponent >= 6) {
                memcpy(buf, e, sizeof(e));
                return;
        }
        (void) snprintf(buf, METRIC_NUMBER_MAX, "%.*f", MAX(digits - 1 - exponent, 0), v);
        if (!strchr(buf, '.'))
                strcat(buf, ".0");
}

/* metricname, less the reserved: no colon (recording rules' results), no leading underscore. */
static bool metric_name_valid(const char *s) {
        if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
                return false;
        for (; *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
                        return false;
        return true;
}

static bool endswith(const char *s, const char *suffix) {
        size_t l = strlen(s), k = strlen(suffix);

        return l >= k && streq(s + l - k, suffix);
}

/* A family name must not end in a suffix some type's samples add (the specification's "Suffixes"). */
static bool family_name_valid(const char *name) {
        static const char *const suffixes[] = { "_total", "_created", "_count", "_sum", "_bucket", "_gcount",
                                                "_gsum", "_info" };

        if (!metric_name_valid(name))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++)
                if (endswith(name, suffixes[i]))
                        return false;
        return true;
}

static int fail(MetricsWriter *w, int error) {
        if (w->error == 0)
                w->error = error;
        return w->error;
}

void metrics_writer_init(MetricsWriter *w, FILE *f) {
        *w = (MetricsWriter) { .f = f };
}

void metrics_writer_done(MetricsWriter *w) {
        for (size_t i = 0; i < w->n_names; i++)
                free(w->names[i]);
        free(w->names);
        *w = (MetricsWriter) {};
}

static void write_escaped(FILE *f, const char *s) {
        for (; *s; s++) {
                if (*s == '\\')
                        fputs("\\\\", f);
                else if (*s == '"')
                        fputs("\\\"", f);
                else if (*s == '\n')
                        fputs("\\n", f);
                else
                        fputc(*s, f);
        }
}

static bool name_seen(const MetricsWriter *w, const char *name) {
        for (size_t i = 0; i < w->n_names; i++)
                if (streq(w->names[i], name))
                        return true;
        return false;
}

int metrics_family(MetricsWriter *w, const char *name, MetricType type, const char *unit, const char *help) {
        char **names, *copy;

        if (w->error)
                return w->error;
        /* A double quote in HELP needs an escape that the older Prometheus text parser rejects (metrics.h). */
        if (w->finished || !metric_type_to_string(type) || !family_name_valid(name) || name_seen(w, name) ||
            (help && strchr(help, '"')))
                return fail(w, -EINVAL);
        if (unit && *unit) {
                size_t l = strlen(name), k = strlen(unit);

                if (!metric_name_valid(unit) || l <= k + 1 || name[l - k - 1] != '_' || !streq(name + l - k, unit))
                        return fail(w, -EINVAL);
        }

        copy = strdup(name);
        names = copy ? reallocarray(w->names, w->n_names + 1, sizeof(char *)) : NULL;
        if (!names) {
                free(copy);
                return fail(w, -ENOMEM);
        }
        w->names = names;
        w->names[w->n_names++] = copy;
        w->family = copy;
        w->type = type;

        fprintf(w->f, "# TYPE %s %s\n", name, metric_type_to_string(type));
        if (unit && *unit)
                fprintf(w->f, "# UNIT %s %s\n", name, unit);
        if (help) {
                fprintf(w->f, "# HELP %s ", name);
                write_escaped(w->f, help);
                fputc('\n', w->f);
        }
        return 0;
}

/* Checks a sample's labels: valid, unique names, none that the sample itself adds (@reserved, may be NULL). */
static bool labels_valid(const MetricLabel *labels, size_t n_labels, const char *reserved) {
        for (size_t i = 0; i < n_labels; i++) {
                const char *s = labels[i].name;

                /* label-name, less the reserved leading underscore. */
                if (!s || !labels[i].value || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
                        return false;
                for (; *s; s++)
                        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
                              *s == '_'))
                                return false;
                if (reserved && streq(labels[i].name, reserved))
                        return false;
                for (size_t k = 0; k < i; k++)
                        if (streq(labels[k].name, labels[i].name))
                                return false;
        }
        return true;
}

/* The start of a sample line: NAME SUFFIX {labels[,extra="value"]} and the space before the value. */
static void write_series(MetricsWriter *w, const char *suffix, const MetricLabel *labels, size_t n_labels,
                         const char *extra_name, const char *extra_value) {
        fprintf(w->f, "%s%s", w->family, suffix);
        if (n_labels > 0 || extra_name) {
                fputc('{', w->f);
                for (size_t i = 0; i < n_labels; i++) {
                        fprintf(w->f, "%s%s=\"", i > 0 ? "," : "", labels[i].name);
                        write_escaped(w->f, labels[i].value);
                        fputc('"', w->f);
                }
                if (extra_name) {
                        fprintf(w->f, "%s%s=\"", n_labels > 0 ? "," : "", extra_name);
                        write_escaped(w->f, extra_value);
                        fputc('"', w->f);
                }
                fputc('}', w->f);
        }
        fputc(' ', w->f);
}

static void write_value(MetricsWriter *w, MetricValue v) {
        char buf[METRIC_NUMBER_MAX];

        if (v.is_double) {
                metrics_format_double(v.d, buf);
                fprintf(w->f, "%s\n", buf);
        } else
                fprintf(w->f, "%" PRIu64 "\n", v.u);
}

/* Common checks before a sample of @type; @reserved is a label name the sample adds itself. */
static int sample_begin(MetricsWriter *w, MetricType type, const MetricLabel *labels, size_t n_labels,
                        const char *reserved) {
        if (w->error)
                return w->error;
        if (w->finished || !w->family || w->type != type || (n_labels > 0 && !labels) ||
            !labels_valid(labels, n_labels, reserved))
                return fail(w, -EINVAL);
        return 0;
}

int metrics_gauge(MetricsWriter *w, const MetricLabel *labels, size_t n_labels, MetricValue v) {
        int r;

        r = sample_begin(w, METRIC_GAUGE, labels, n_labels, NULL);
        if (r < 0)
                return r;
        write_series(w, "", labels, n_labels, NULL, NULL);
        write_value(w, v);
        return 0;
}

int metrics_counter(MetricsWriter *w, const MetricLabel *labels, size_t n_labels, MetricValue v) {
        int r;

        r = sample_begin(w, METRIC_COUNTER, labels, n_labels, NULL);
        if (r < 0)
                return r;
        /* A counter's total is never negative nor NaN (the specification's Counter). */
        if (v.is_double && !(v.d >= 0))
                return fail(w, -EINVAL);
        write_series(w, "_total", labels, n_labels, NULL, NULL);
        write_value(w, v);
        return 0;
}

int metrics_histogram(MetricsWriter *w, const MetricLabel *labels, size_t n_labels, const double *upper_bounds,
                      const uint64_t *counts, size_t n_buckets, const double *sum) {
        char le[METRIC_NUMBER_MAX];
        uint64_t total = 0;
        int r;

        r = sample_begin(w, METRIC_HISTOGRAM, labels, n_labels, "le");
        if (r < 0)
                return r;
        /* Ascending, unique, not NaN; no negative bound, since a sum is only meaningful without them. */
        for (size_t i = 0; i < n_buckets; i++)
                if (!(upper_bounds[i] >= 0) || (i > 0 && !(upper_bounds[i] > upper_bounds[i - 1])))
                        return fail(w, -EINVAL);
        if (sum && !(*sum >= 0))
                return fail(w, -EINVAL);

        for (size_t i = 0; i < n_buckets; i++) {
                if (counts[i] > UINT64_MAX - total)
                        return fail(w, -EOVERFLOW);
                total += counts[i];
                metrics_format_double(upper_bounds[i], le);
                write_series(w, "_bucket", labels, n_labels, "le", le);
                write_value(w, METRIC_U64(total));
        }
        if (n_buckets == 0 || !isinf(upper_bounds[n_buckets - 1])) {
                write_series(w, "_bucket", labels, n_labels, "le", "+Inf");
                write_value(w, METRIC_U64(total));
        }
        /* _count is the +Inf bucket, and must be there when _sum is. */
        write_series(w, "_count", labels, n_labels, NULL, NULL);
        write_value(w, METRIC_U64(total));
        if (sum) {
                write_series(w, "_sum", labels, n_labels, NULL, NULL);
                write_value(w, METRIC_DOUBLE(*sum));
        }
        return 0;
}

int metrics_finish(MetricsWriter *w) {
        if (w->error)
                return w->error;
        if (w->finished)
                return fail(w, -EINVAL);
        w->finished = true;
        fputs("# EOF\n", w->f);
        if (fflush(w->f) != 0 || ferror(w->f))
                return fail(w, -EIO);
        return 0;
}
