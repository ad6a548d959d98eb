/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay-report.c: replay's table and summary for a person (daemon/replay/replay-report.h). */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc-util.h"
#include "cpulist.h"
#include "replay-report.h"
#include "time-util.h"

/*
 * A continuous policy (intel_pstate) can visit hundreds of frequencies in a long trace: the summary lists the
 * ones it spent most time at and sums up the rest in one row, so that it stays a screenful.
 */
#define REPORT_FREQS_SHOWN_MAX 10

typedef struct FreqTime {
        uint32_t khz;
        uint64_t ns;
} FreqTime;

typedef struct PolicyReport {
        uint32_t cur_khz;             /* in force since since_ns */
        uint64_t since_ns;
        FreqTime *times;              /* time at each frequency visited, in order of first visit */
        size_t n_times, allocated;
} PolicyReport;

struct ReplayReport {
        const Topology *topo;
        PolicyReport *policies;       /* topo->n_policies */
        bool started;
        uint64_t start_ns, end_ns;
        uint64_t by_kind[_REPLAY_ROW_KIND_MAX];
        uint64_t *waits_ns;           /* each deferred decision's wait; sorted by replay_report_finish() */
        size_t n_waits, allocated_waits;
        char tick[96];                /* the tick and where it came from (replay_report_set_tick()), or "" */
};

static const char *const row_kind_table[_REPLAY_ROW_KIND_MAX] = {
        [REPLAY_ROW_LOCAL] = "local",
        [REPLAY_ROW_REMOTE] = "remote",
        [REPLAY_ROW_DEFERRED] = "deferred",
};

const char *replay_row_kind_to_string(ReplayRowKind k) {
        return k >= 0 && k < _REPLAY_ROW_KIND_MAX ? row_kind_table[k] : NULL;
}

/* Deferred wins: such a change is local by the engine's kind (a remote one would not have had to wait). */
ReplayRowKind replay_row_kind(const Decision *d) {
        if (d->deferred)
                return REPLAY_ROW_DEFERRED;
        return d->kind == DECISION_REMOTE ? REPLAY_ROW_REMOTE : REPLAY_ROW_LOCAL;
}

void replay_report_set_tick(ReplayReport *r, const char *text) {
        (void) snprintf(r->tick, sizeof(r->tick), "%s", text ? text : "");
}

int replay_report_new(const Topology *topo, ReplayReport **ret) {
        _cleanup_(replay_report_freep) ReplayReport *r = NULL;

        r = calloc(1, sizeof(ReplayReport));
        if (!r)
                return -ENOMEM;
        r->topo = topo;
        r->policies = calloc(MAX(topo->n_policies, (size_t) 1), sizeof(PolicyReport));
        if (!r->policies)
                return -ENOMEM;
        *ret = TAKE_PTR(r);
        return 0;
}

ReplayReport *replay_report_free(ReplayReport *r) {
        if (!r)
                return NULL;
        if (r->policies)
                for (size_t i = 0; i < r->topo->n_policies; i++)
                        free(r->policies[i].times);
        free(r->policies);
        free(r->waits_ns);
        free(r);
        return NULL;
}

void replay_report_start(ReplayReport *r, unsigned policy_index, uint64_t t_ns, uint32_t khz) {
        if (!r->started) {
                r->started = true;
                r->start_ns = r->end_ns = t_ns;
        }
        if (policy_index < r->topo->n_policies)
                r->policies[policy_index] = (PolicyReport) { .cur_khz = khz, .since_ns = t_ns };
}

bool replay_report_started(const ReplayReport *r) {
        return r->started;
}

/* Adds the time since the last change to the frequency in force, up to @t_ns. */
static int policy_report_advance(PolicyReport *p, uint64_t t_ns) {
        uint64_t held_ns = t_ns > p->since_ns ? t_ns - p->since_ns : 0;
        size_t i;

        for (i = 0; i < p->n_times; i++)
                if (p->times[i].khz == p->cur_khz)
                        break;
        if (i == p->n_times) {
                FreqTime *times = greedy_realloc(p->times, &p->allocated, p->n_times + 1, sizeof(FreqTime), 8);

                if (!times)
                        return -ENOMEM;
                p->times = times;
                p->times[p->n_times++] = (FreqTime) { .khz = p->cur_khz };
        }
        p->times[i].ns += held_ns;
        p->since_ns = MAX(p->since_ns, t_ns);
        return 0;
}

int replay_report_decision(ReplayReport *r, const Decision *d) {
        ReplayRowKind kind = replay_row_kind(d);
        PolicyReport *p;
        int k;

        if (!r->started || d->policy_index >= r->topo->n_policies)
                return 0;
        r->by_kind[kind]++;
        if (kind == REPLAY_ROW_DEFERRED) {
                uint64_t *waits = greedy_realloc(r->waits_ns, &r->allocated_waits, r->n_waits + 1, sizeof(uint64_t), 8);

                if (!waits)
                        return -ENOMEM;
                r->waits_ns = waits;
                r->waits_ns[r->n_waits++] = d->time_ns >= d->deferred_since_ns ? d->time_ns - d->deferred_since_ns : 0;
        }
        p = &r->policies[d->policy_index];
        k = policy_report_advance(p, d->time_ns);
        if (k < 0)
                return k;
        p->cur_khz = d->new_khz;
        r->end_ns = MAX(r->end_ns, d->time_ns);
        return 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

void replay_report_finish(ReplayReport *r, uint64_t end_ns) {
        if (!r->started)
                return;
        r->end_ns = MAX(r->end_ns, end_ns);
        /* Out of memory here costs the last stretch's time in the table, nothing else. */
        for (size_t i = 0; i < r->topo->n_policies; i++)
                (void) policy_report_advance(&r->policies[i], r->end_ns);
        if (r->n_waits > 0)
                qsort(r->waits_ns, r->n_waits, sizeof(uint64_t), cmp_u64);
}

int replay_report_counts(const ReplayReport *r, ReplayReportCounts *ret) {
        *ret = (ReplayReportCounts) {};
        for (int k = 0; k < _REPLAY_ROW_KIND_MAX; k++) {
                ret->by_kind[k] = r->by_kind[k];
                ret->decisions += r->by_kind[k];
        }
        if (r->n_waits > 0) {
                /* Nearest rank: the lower middle of an even count, a wait that happened. */
                ret->deferred_p50_ns = r->waits_ns[(r->n_waits - 1) / 2];
                ret->deferred_max_ns = r->waits_ns[r->n_waits - 1];
        }
        return 0;
}

/* "12.345678": seconds with µs, the trace's own style. */
static void format_seconds(uint64_t t_ns, char buf[static 32]) {
        (void) snprintf(buf, 32, "%" PRIu64 ".%06" PRIu64, t_ns / NSEC_PER_SEC, t_ns % NSEC_PER_SEC / 1000);
}

/* "1234.567" (MHz with the kHz: exact for any table's steps). */
static void format_mhz(uint32_t khz, char buf[static 16]) {
        (void) snprintf(buf, 16, "%" PRIu32 ".%03" PRIu32, khz / 1000, khz % 1000);
}

/* "12.345 ms": a deferred wait runs from a tick (ms) to the rate limit's and the trace's gaps (seconds). */
static void format_ms(uint64_t ns, char buf[static 32]) {
        const uint64_t ns_per_ms = 1000 * NSEC_PER_USEC;

        (void) snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64 " ms", ns / ns_per_ms, ns % ns_per_ms / NSEC_PER_USEC);
}

#define ROW_FORMAT "%12s  %3s  %6s  %8s  %4s  %-8s  %-6s  %s\n"

void replay_report_print_header(FILE *f) {
        fprintf(f, ROW_FORMAT, "time", "cpu", "policy", "freq MHz", "util", "kind", "reason", "task");
        fprintf(f, ROW_FORMAT, "------------", "---", "------", "--------", "----", "--------", "------",
                "------------------");
}

void replay_report_print_decision(const ReplayReport *r, FILE *f, const Decision *d, bool absolute,
                                  const char *comm) {
        char t[32], cpu[16], policy[16], mhz[16], util[16], task[TASK_COMM_LEN + 16];
        /* Decisions never come before the first event (the engine's clock only moves forward from it). */
        uint64_t t_ns = absolute ? d->time_ns : d->time_ns - MIN(r->start_ns, d->time_ns);

        format_seconds(t_ns, t);
        (void) snprintf(cpu, sizeof(cpu), "%d", d->cpu);
        (void) snprintf(policy, sizeof(policy), "%d", decision_policy_cpu(d, r->topo));
        format_mhz(d->new_khz, mhz);
        (void) snprintf(util, sizeof(util), "%u", d->util);
        if (d->pid <= 0)
                strcpy(task, "-");
        else
                (void) snprintf(task, sizeof(task), "%s[%" PRId32 "]", comm && comm[0] ? comm : "?", d->pid);
        fprintf(f, ROW_FORMAT, t, cpu, policy, mhz, util, replay_row_kind_to_string(replay_row_kind(d)),
                decision_reason_to_string(d->reason), task);
}

static int cmp_time_desc(const void *a, const void *b) {
        const FreqTime *x = a, *y = b;

        return x->ns > y->ns ? -1 : x->ns < y->ns;
}

static int cmp_khz(const void *a, const void *b) {
        const FreqTime *x = a, *y = b;

        return x->khz < y->khz ? -1 : x->khz > y->khz;
}

#define FREQ_ROW_FORMAT "  %-6s  %-10s  %8s  %12s  %6s\n"

static void print_share(FILE *f, const char *policy, const char *cpus, const char *what, uint64_t ns,
                        uint64_t span_ns) {
        char t[32], share[16] = "-";

        format_seconds(ns, t);
        if (span_ns > 0)
                (void) snprintf(share, sizeof(share), "%.1f%%", 100.0 * (double) ns / (double) span_ns);
        fprintf(f, FREQ_ROW_FORMAT, policy, cpus, what, t, share);
}

/* One policy's rows: the frequencies it spent most time at, by frequency, then the rest summed up. */
static int print_policy_times(FILE *f, const ReplayReport *r, size_t i) {
        const PolicyReport *p = &r->policies[i];
        const PolicyDesc *desc = &r->topo->policies[i];
        _cleanup_free_ FreqTime *times = NULL;
        size_t shown = p->n_times;
        uint64_t rest_ns = 0;
        char policy[16], cpus[64], mhz[16];

        if (p->n_times == 0)
                return 0;
        times = reallocarray(NULL, p->n_times, sizeof(FreqTime));
        if (!times)
                return -ENOMEM;
        memcpy(times, p->times, p->n_times * sizeof(FreqTime));
        if (shown > REPORT_FREQS_SHOWN_MAX) {
                qsort(times, p->n_times, sizeof(FreqTime), cmp_time_desc);
                shown = REPORT_FREQS_SHOWN_MAX - 1;
                for (size_t j = shown; j < p->n_times; j++)
                        rest_ns += times[j].ns;
        }
        qsort(times, shown, sizeof(FreqTime), cmp_khz);

        (void) snprintf(policy, sizeof(policy), "%d", MAX(cpulist_first(&desc->cpus), 0));
        if (cpulist_format(&desc->cpus, cpus, sizeof(cpus)) < 0)
                strcpy(cpus, "...");
        for (size_t j = 0; j < shown; j++) {
                format_mhz(times[j].khz, mhz);
                print_share(f, j == 0 ? policy : "", j == 0 ? cpus : "", mhz, times[j].ns, r->end_ns - r->start_ns);
        }
        if (shown < p->n_times) {
                char other[32];

                (void) snprintf(other, sizeof(other), "%zu more", p->n_times - shown);
                print_share(f, "", "", other, rest_ns, r->end_ns - r->start_ns);
        }
        return 0;
}

int replay_report_print_summary(const ReplayReport *r, FILE *f, uint64_t events) {
        ReplayReportCounts c;
        char start[32], end[32], span[32], p50[32], max[32];
        int k;

        (void) replay_report_counts(r, &c);
        fputs("\nSummary", f);
        if (!r->started) {
                fprintf(f, ": no event in the trace, no decision.\n");
                return 0;
        }
        format_seconds(r->start_ns, start);
        format_seconds(r->end_ns, end);
        format_seconds(r->end_ns - r->start_ns, span);
        fprintf(f, ": %" PRIu64 " events over %s s (trace time %s to %s)\n", events, span, start, end);
        fprintf(f, "  decisions       %" PRIu64 ": local %" PRIu64 ", remote %" PRIu64 ", deferred %" PRIu64 "\n",
                c.decisions, c.by_kind[REPLAY_ROW_LOCAL], c.by_kind[REPLAY_ROW_REMOTE],
                c.by_kind[REPLAY_ROW_DEFERRED]);
        if (r->n_waits == 0)
                fputs("  deferred waits  none\n", f);
        else {
                format_ms(c.deferred_p50_ns, p50);
                format_ms(c.deferred_max_ns, max);
                fprintf(f, "  deferred waits  %zu: p50 %s, max %s\n", r->n_waits, p50, max);
        }
        if (r->tick[0])
                fprintf(f, "  tick            %s\n", r->tick);

        fputs("\n  time at frequency\n", f);
        fprintf(f, FREQ_ROW_FORMAT, "policy", "cpus", "freq MHz", "time s", "share");
        for (size_t i = 0; i < r->topo->n_policies; i++) {
                k = print_policy_times(f, r, i);
                if (k < 0)
                        return k;
        }
        return 0;
}
