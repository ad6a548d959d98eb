/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verb-metrics.c: `metrics` maps a snapshot and the rules to OpenMetrics families (docs/metrics.md lists them);
 * the syntax is the daemon's writer's (include/metrics.h).
 */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "macro.h"
#include "metrics.h"
#include "schedfreqd-dbus.h"
#include "snapshot.h"
#include "verb-metrics.h"
#include "verb-rules.h"

/* A metric family whose value, per object, is one D-Bus property (times @scale: kHz → Hz is 1000). */
typedef struct PropMetric {
        const char *name;
        MetricType type;          /* METRIC_GAUGE or METRIC_COUNTER */
        const char *unit;
        const char *property;
        uint64_t scale;
        const char *help;
} PropMetric;

static const PropMetric daemon_metrics[] = {
        { "schedfreqd_paused", METRIC_GAUGE, NULL, "Paused", 1,
          "1 while the policies are handed back to their original governors (schedfreqctl pause)." },
        { "schedfreqd_events", METRIC_COUNTER, NULL, "EventsSeen", 1, "Scheduler events fed to the model." },
        { "schedfreqd_events_lost", METRIC_COUNTER, NULL, "EventsLost", 1,
          "Events the kernel dropped because a perf ring was full." },
        { "schedfreqd_events_late", METRIC_COUNTER, NULL, "EventsLate", 1,
          "Events older than the model's clock (applied at its time)." },
        { "schedfreqd_ring_overflows", METRIC_COUNTER, NULL, "RingOverflows", 1,
          "Times a CPU's events were found lost and its model rebuilt from its next events." },
        { "schedfreqd_frequency_writes", METRIC_COUNTER, NULL, "FrequencyWrites", 1,
          "scaling_setspeed writes that succeeded, all policies." },
};

static const PropMetric policy_metrics[] = {
        { "schedfreqd_policy_frequency_hertz", METRIC_GAUGE, "hertz", "CurrentKHz", 1000,
          "The frequency schedfreqd last set (stale while paused)." },
        { "schedfreqd_policy_scaling_min_frequency_hertz", METRIC_GAUGE, "hertz", "MinKHz", 1000,
          "scaling_min_freq in force." },
        { "schedfreqd_policy_scaling_max_frequency_hertz", METRIC_GAUGE, "hertz", "MaxKHz", 1000,
          "scaling_max_freq in force." },
        { "schedfreqd_policy_cpuinfo_min_frequency_hertz", METRIC_GAUGE, "hertz", "CpuinfoMinKHz", 1000,
          "The hardware's lowest frequency (cpuinfo_min_freq)." },
        { "schedfreqd_policy_cpuinfo_max_frequency_hertz", METRIC_GAUGE, "hertz", "CpuinfoMaxKHz", 1000,
          "The hardware's highest frequency (cpuinfo_max_freq)." },
        { "schedfreqd_policy_demand", METRIC_GAUGE, NULL, "Demand", 1,
          "The policy's utilisation on the scheduler's 0..1024 scale (the most of its CPUs')." },
        { "schedfreqd_policy_managed", METRIC_GAUGE, NULL, "Managed", 1,
          "1 when schedfreqd governs the policy ([governor] policies=)." },
        { "schedfreqd_policy_remote_permitted", METRIC_GAUGE, NULL, "RemotePermitted", 1,
          "1 when events on other CPUs may change the policy's frequency at once." },
        { "schedfreqd_policy_deferred_decisions", METRIC_COUNTER, NULL, "DeferredDecisions", 1,
          "Demand changes a remote event recorded that had to wait for a local event." },
        { "schedfreqd_policy_write_errors", METRIC_COUNTER, NULL, "WriteErrors", 1,
          "Failed scaling_setspeed writes." },
};

/* actuator.h's states as the Policy object's State property names them, plus "unmanaged". */
static const char *const policy_states[] = { "governed", "backing-off", "offline", "released", "unmanaged" };

static int metrics_prop_family(MetricsWriter *w, const PropMetric *pm, const Object *objects, size_t n,
                               const char *label) {
        int r;

        r = metrics_family(w, pm->name, pm->type, pm->unit, pm->help);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const Prop *p = prop_find(&objects[i], pm->property);
                char id[24];
                MetricLabel l = { label, id };

                if (!p) /* an older daemon: the family, without samples */
                        continue;
                (void) snprintf(id, sizeof(id), "%" PRIu64, prop_u(&objects[i], "Id"));
                MetricValue v = METRIC_U64(prop_u(&objects[i], pm->property) * pm->scale);
                r = pm->type == METRIC_COUNTER ? metrics_counter(w, &l, label ? 1 : 0, v)
                                               : metrics_gauge(w, &l, label ? 1 : 0, v);
        }
        return r;
}

/*
 * The daemon's reaction-latency histogram (LatencyStats, daemon/service/latency.h): bucket i counts [2^i, 2^(i+1)) µs,
 * bucket 0 also what is below 1 µs, the last one everything above. So bucket i's values are <= 2^(i+1) µs,
 * its "le", and the last one's bound is +Inf.
 */
static int metrics_latency(MetricsWriter *w, const Object *d) {
        const Prop *h = prop_find(d, "ReactionLatencyHistogram"), *sum = prop_find(d, "ReactionLatencySumUSec");
        _cleanup_free_ double *bounds = NULL;
        double sum_s;
        int r;

        r = metrics_family(w, "schedfreqd_reaction_latency_seconds", METRIC_HISTOGRAM, "seconds",
                           "From a scheduler event to the scaling_setspeed write it caused (ticks not counted).");
        if (r < 0 || !h || h->n_array == 0)
                return r;

        bounds = calloc(h->n_array, sizeof(double));
        if (!bounds)
                return -ENOMEM;
        for (size_t i = 0; i < h->n_array; i++)
                bounds[i] = i + 1 < h->n_array ? ldexp(1e-6, (int) i + 1) : INFINITY;
        /* A daemon from before ReactionLatencySumUSec: no _sum (it is optional). */
        sum_s = sum ? (double) sum->u / 1e6 : 0;
        return metrics_histogram(w, NULL, 0, bounds, h->array, h->n_array, sum ? &sum_s : NULL);
}

static int metrics_policies(MetricsWriter *w, const Snapshot *s) {
        static const char *const kinds[] = { "local", "remote" }, *const kind_props[] = { "LocalDecisions",
                                                                                         "RemoteDecisions" };
        int r = 0;

        for (size_t k = 0; r >= 0 && k < ELEMENTSOF(policy_metrics); k++)
                r = metrics_prop_family(w, &policy_metrics[k], s->policies, s->n_policies, "policy");

        if (r >= 0)
                r = metrics_family(w, "schedfreqd_policy_decisions", METRIC_COUNTER, NULL,
                                   "Frequency changes decided, by the kind of event that triggered them: on one of the "
                                   "policy's CPUs (local) or another (remote). Each is a scaling_setspeed write.");
        for (size_t i = 0; r >= 0 && i < s->n_policies; i++)
                for (size_t k = 0; r >= 0 && k < ELEMENTSOF(kinds); k++) {
                        char id[24];

                        (void) snprintf(id, sizeof(id), "%" PRIu64, prop_u(&s->policies[i], "Id"));
                        r = metrics_counter(w, (MetricLabel[]) { { "policy", id }, { "kind", kinds[k] } }, 2,
                                            METRIC_U64(prop_u(&s->policies[i], kind_props[k])));
                }

        /* One 0/1 gauge per state, not an OpenMetrics stateset, which node_exporter cannot read (metrics.h). */
        if (r >= 0)
                r = metrics_family(w, "schedfreqd_policy_state", METRIC_GAUGE, NULL,
                                   "1 for the policy's state: governed; backing-off (its writes fail, retried); "
                                   "offline (all its CPUs); released (another tool took it); unmanaged.");
        for (size_t i = 0; r >= 0 && i < s->n_policies; i++) {
                const char *state = prop_s(&s->policies[i], "State");
                bool known = false;
                char id[24];

                if (!*state) /* an older daemon */
                        continue;
                (void) snprintf(id, sizeof(id), "%" PRIu64, prop_u(&s->policies[i], "Id"));
                for (size_t k = 0; r >= 0 && k < ELEMENTSOF(policy_states); k++) {
                        known = known || streq(state, policy_states[k]);
                        r = metrics_gauge(w, (MetricLabel[]) { { "policy", id }, { "state", policy_states[k] } }, 2,
                                          METRIC_U64(streq(state, policy_states[k])));
                }
                if (r >= 0 && !known) /* a newer daemon's state: still exactly one series at 1 */
                        r = metrics_gauge(w, (MetricLabel[]) { { "policy", id }, { "state", state } }, 2, METRIC_U64(1));
        }
        return r;
}

static int metrics_cpus(MetricsWriter *w, const Snapshot *s) {
        int r;

        r = metrics_family(w, "schedfreqd_cpu_util", METRIC_GAUGE, NULL,
                           "The CPU's demand on the 0..1024 scale: max(util_avg, util_est), capped at its capacity.");
        for (size_t i = 0; r >= 0 && i < s->n_cpus; i++) {
                char cpu[24], policy[24];

                (void) snprintf(cpu, sizeof(cpu), "%" PRIu64, prop_u(&s->cpus[i], "Id"));
                (void) snprintf(policy, sizeof(policy), "%" PRIu64, prop_u(&s->cpus[i], "Policy"));
                r = metrics_gauge(w, (MetricLabel[]) { { "cpu", cpu }, { "policy", policy } }, 2,
                                  METRIC_U64(prop_u(&s->cpus[i], "Util")));
        }
        return r;
}

static int metrics_rules(MetricsWriter *w, const RuleRow *rows, size_t n_rows) {
        _Static_assert(SCHEDFREQD_RULE_TASKS_MAX == 256U, "schedfreqd_rule_tasks' help says 256");
        int r;

        r = metrics_family(w, "schedfreqd_rule_decisions", METRIC_COUNTER, NULL,
                           "Frequency changes a per-process rule decided since the configuration was loaded.");
        for (size_t i = 0; r >= 0 && i < n_rows; i++)
                r = metrics_counter(w, &(MetricLabel) { "rule", rows[i].name }, 1, METRIC_U64(rows[i].decisions));
        if (r >= 0)
                r = metrics_family(w, "schedfreqd_rule_tasks", METRIC_GAUGE, NULL,
                                   "Running tasks the rule applies to (GetRules lists at most 256).");
        for (size_t i = 0; r >= 0 && i < n_rows; i++)
                r = metrics_gauge(w, &(MetricLabel) { "rule", rows[i].name }, 1, METRIC_U64(rows[i].n_tasks));
        return r;
}

static int metrics_write(MetricsWriter *w, const Snapshot *s, const RuleRow *rows, size_t n_rows) {
        const Object *d = &s->daemon;
        int r;

        r = metrics_family(w, "schedfreqd_uptime_seconds", METRIC_GAUGE, "seconds",
                           "Time since the daemon started governing.");
        if (r >= 0)
                r = metrics_gauge(w, NULL, 0, METRIC_DOUBLE((double) prop_u(d, "UptimeUSec") / 1e6));
        for (size_t k = 0; r >= 0 && k < ELEMENTSOF(daemon_metrics); k++)
                r = metrics_prop_family(w, &daemon_metrics[k], d, 1, NULL);
        if (r >= 0)
                r = metrics_family(w, "schedfreqd_proc_connector_active", METRIC_GAUGE, NULL,
                                   "1 while the netlink proc connector reports processes (it may be unavailable, "
                                   "e.g. in a new pid namespace).");
        if (r >= 0)
                r = metrics_gauge(w, NULL, 0, METRIC_U64(streq(prop_s(d, "ProcConnector"), "active")));
        if (r >= 0)
                r = metrics_latency(w, d);
        if (r >= 0)
                r = metrics_policies(w, s);
        if (r >= 0)
                r = metrics_cpus(w, s);
        if (r >= 0)
                r = metrics_rules(w, rows, n_rows);
        return r;
}

/*
 * Everything is read first and formatted in memory, and printed only when complete: a failure prints nothing
 * on stdout, so `schedfreqctl metrics > F.$$ && mv F.$$ F` never leaves a partial file for a collector.
 */
int verb_metrics(sd_bus *bus, const CtlOptions *o, char **args) {
        _cleanup_free_ char *text = NULL;
        RuleRow *rows = NULL;
        size_t n_rows = 0, size = 0;
        MetricsWriter w;
        Snapshot s;
        FILE *f;
        int r;

        r = snapshot_read(bus, o->address, &s);
        if (r < 0)
                return r;
        r = rules_read(bus, o->address, &rows, &n_rows);
        if (r < 0) {
                snapshot_done(&s);
                return r;
        }

        f = open_memstream(&text, &size);
        if (f) {
                metrics_writer_init(&w, f);
                r = metrics_write(&w, &s, rows, n_rows);
                if (r >= 0)
                        r = metrics_finish(&w);
                metrics_writer_done(&w);
                if (fclose(f) != 0 && r >= 0)
                        r = negative_errno();
        } else
                r = negative_errno();
        snapshot_done(&s);
        rule_rows_free(rows, n_rows);
        if (r < 0) {
                fprintf(stderr, "Failed to format the metrics: %s\n", strerror(-r));
                return r;
        }
        if (fwrite(text, 1, size, stdout) != size)
                return stdout_done(-EIO);
        return stdout_done(0);
}

