/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for replay-report.c: replay's table rows and summary (issue #24 item 4). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "replay-report.h"
#include "test.h"
#include "time-util.h"

#define TRACES FIXTURES "/traces"

static Topology *load(const char *name) {
        _cleanup_free_ char *path = NULL, *error = NULL;
        Topology *t = NULL;

        if (asprintf(&path, TRACES "/%s", name) < 0 || topology_load(path, &t, &error) < 0)
                return NULL;
        return t;
}

/* @f's contents, NUL-terminated (a memstream). */
typedef struct Captured {
        char *buf;
        size_t size;
        FILE *f;
} Captured;

static void captured_done(Captured *c) {
        if (c->f)
                fclose(c->f);
        free(c->buf);
}

static Decision decision(uint64_t t_ns, unsigned policy, uint32_t khz, DecisionKind kind, bool deferred,
                         uint64_t since_ns) {
        return (Decision) { .time_ns = t_ns, .policy_index = policy, .policy_id = policy, .new_khz = khz,
                            .cpu = (int) policy, .kind = kind, .reason = DECISION_REASON_DEMAND, .util = 100,
                            .pid = 7, .deferred = deferred, .deferred_since_ns = deferred ? since_ns : 0,
                            .source = DECISION_SOURCE_REPLAY };
}

/* Kinds counted once each (deferred over local), waits p50 (lower middle) and max. */
TEST(counts) {
        _cleanup_(topology_freep) Topology *t = load("two-dt.ini");
        _cleanup_(replay_report_freep) ReplayReport *r = NULL;
        ReplayReportCounts c;
        Decision d;

        ASSERT_TRUE(t);
        ASSERT_OK(replay_report_new(t, &r));
        ASSERT_TRUE(!replay_report_started(r));
        replay_report_start(r, 0, 1000 * NSEC_PER_SEC, 500000);
        replay_report_start(r, 1, 1000 * NSEC_PER_SEC, 500000);
        d = decision(1000 * NSEC_PER_SEC + 1000, 0, 1000000, DECISION_LOCAL, false, 0);
        ASSERT_OK(replay_report_decision(r, &d));
        d = decision(1000 * NSEC_PER_SEC + 2000, 0, 2000000, DECISION_REMOTE, false, 0);
        ASSERT_OK(replay_report_decision(r, &d));
        for (uint64_t wait_us = 1; wait_us <= 4; wait_us++) {
                uint64_t at_ns = 1000 * NSEC_PER_SEC + 10000 * wait_us;

                d = decision(at_ns, 1, wait_us & 1 ? 2000000 : 500000, DECISION_LOCAL, true,
                             at_ns - wait_us * NSEC_PER_USEC);
                ASSERT_OK(replay_report_decision(r, &d));
        }
        replay_report_finish(r, 1001 * NSEC_PER_SEC);
        ASSERT_OK(replay_report_counts(r, &c));
        ASSERT_U64_EQ(c.decisions, 6);
        ASSERT_U64_EQ(c.by_kind[REPLAY_ROW_LOCAL], 1);
        ASSERT_U64_EQ(c.by_kind[REPLAY_ROW_REMOTE], 1);
        ASSERT_U64_EQ(c.by_kind[REPLAY_ROW_DEFERRED], 4);
        ASSERT_U64_EQ(c.deferred_p50_ns, 2 * NSEC_PER_USEC);
        ASSERT_U64_EQ(c.deferred_max_ns, 4 * NSEC_PER_USEC);
        ASSERT_STREQ(replay_row_kind_to_string(replay_row_kind(&d)), "deferred");
}

/* A row: the time since the start (or the trace's), MHz with the kHz, the task or "-" or "?". */
TEST(row) {
        _cleanup_(topology_freep) Topology *t = load("two-dt.ini");
        _cleanup_(replay_report_freep) ReplayReport *r = NULL;
        _cleanup_(captured_done) Captured c = {};
        Decision d = decision(1700500000, 1, 507812, DECISION_REMOTE, false, 0);

        ASSERT_TRUE(t);
        ASSERT_OK(replay_report_new(t, &r));
        replay_report_start(r, 0, 1000000000, 500000);
        c.f = open_memstream(&c.buf, &c.size);
        ASSERT_TRUE(c.f);
        replay_report_print_decision(r, c.f, &d, false, "heavy");
        replay_report_print_decision(r, c.f, &d, true, NULL);
        d.pid = 0;
        replay_report_print_decision(r, c.f, &d, false, "swapper/1");
        ASSERT_OK(fflush(c.f));
        ASSERT_STREQ(c.buf,
                     "    0.700500    1       1   507.812   100  remote    demand  heavy[7]\n"
                     "    1.700500    1       1   507.812   100  remote    demand  ?[7]\n"
                     "    0.700500    1       1   507.812   100  remote    demand  -\n");
}

/* Past ten frequencies a policy's rows are the nine it spent most time at and one "N more". */
TEST(summary_folds_frequencies) {
        _cleanup_(topology_freep) Topology *t = load("slow.ini");
        _cleanup_(replay_report_freep) ReplayReport *r = NULL;
        _cleanup_(captured_done) Captured c = {};
        unsigned freq_rows = 0;
        Decision d;

        ASSERT_TRUE(t);
        ASSERT_OK(replay_report_new(t, &r));
        replay_report_start(r, 0, 0, 100000);
        /* 100..1500 MHz, frequency i held i ms: the six lowest are the least. */
        for (unsigned i = 1, at_ms = 1; i <= 15; at_ms += i, i++) {
                d = decision(at_ms * 1000 * NSEC_PER_USEC, 0, 100000 * (i + 1), DECISION_LOCAL, false, 0);
                ASSERT_OK(replay_report_decision(r, &d));
        }
        replay_report_finish(r, 200 * 1000 * NSEC_PER_USEC);
        c.f = open_memstream(&c.buf, &c.size);
        ASSERT_TRUE(c.f);
        ASSERT_OK(replay_report_print_summary(r, c.f, 42));
        ASSERT_OK(fflush(c.f));
        for (const char *p = strstr(c.buf, "share\n"); p && (p = strchr(p, '\n')) && p[1]; p++)
                freq_rows++;
        ASSERT_EQ(freq_rows, 10u);
        ASSERT_TRUE(strstr(c.buf, "   7 more "));
        ASSERT_TRUE(strstr(c.buf, "  decisions       15: local 15, remote 0, deferred 0\n"));
        ASSERT_TRUE(strstr(c.buf, "  deferred waits  none\n"));
        ASSERT_TRUE(!strstr(c.buf, " 100.000 ")); /* the start's 1 ms is among the folded */
        for (const char *line = c.buf; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
                ASSERT_TRUE(strcspn(line, "\n") <= 80);
}

TEST(summary_without_events) {
        _cleanup_(topology_freep) Topology *t = load("two-dt.ini");
        _cleanup_(replay_report_freep) ReplayReport *r = NULL;
        _cleanup_(captured_done) Captured c = {};

        ASSERT_TRUE(t);
        ASSERT_OK(replay_report_new(t, &r));
        replay_report_finish(r, 5);
        c.f = open_memstream(&c.buf, &c.size);
        ASSERT_TRUE(c.f);
        ASSERT_OK(replay_report_print_summary(r, c.f, 0));
        ASSERT_OK(fflush(c.f));
        ASSERT_STREQ(c.buf, "\nSummary: no event in the trace, no decision.\n");
}

DEFINE_TEST_MAIN
