/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for tick-estimate.c: the tick of the kernel that recorded a trace, from sched_stat_runtime spacing. Each
 * standard HZ from clean reports; jitter; the gaps that must not count (a report that does not cover its gap,
 * another task, a switch in between); too few gaps; no majority.
 */

#include <errno.h>

#include "macro.h"
#include "model.h"
#include "test.h"

#define MS UINT64_C(1000000)

static SchedEvent runtime_ev(int cpu, int32_t pid, uint64_t time_ns, uint64_t runtime_ns) {
        return (SchedEvent) { .type = SCHED_EVENT_RUNTIME, .time_ns = time_ns, .cpu = cpu,
                              .runtime = { .comm = "busy", .pid = pid, .runtime_ns = runtime_ns } };
}

static SchedEvent switch_ev(int cpu, uint64_t time_ns, int32_t next_pid) {
        return (SchedEvent) { .type = SCHED_EVENT_SWITCH, .time_ns = time_ns, .cpu = cpu,
                              .sw = { .prev_pid = 1, .next_pid = next_pid } };
}

/* @n reports of one task on @cpu, @period_ns apart from @start_ns, each covering its gap. */
static void feed_chain(TickEstimate *t, int cpu, int32_t pid, uint64_t start_ns, uint64_t period_ns, unsigned n) {
        for (unsigned i = 0; i < n; i++) {
                SchedEvent ev = runtime_ev(cpu, pid, start_ns + i * period_ns, period_ns);

                tick_estimate_event(t, &ev);
        }
}

static int estimate_chain(uint64_t period_ns, unsigned n, TickEstimateResult *res) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;

        if (tick_estimate_new(&t) < 0)
                return -ENOMEM;
        feed_chain(t, 1, 400, 1000 * MS, period_ns, n);
        return tick_estimate_result(t, res);
}

TEST(standard_hz) {
        TickEstimateResult res;

        ASSERT_EQ(estimate_chain(1 * MS, 65, &res), 1000);
        ASSERT_EQ(res.votes, 64);
        ASSERT_EQ(res.gaps, 64);
        ASSERT_EQ(estimate_chain(4 * MS, 65, &res), 250);
        ASSERT_EQ(estimate_chain(3333333, 65, &res), 300);
        ASSERT_EQ(estimate_chain(10 * MS, 65, &res), 100);
        /* perf script's µs: 3.333 ms */
        ASSERT_EQ(estimate_chain(3333000, 65, &res), 300);
}

TEST(enough_after_the_gaps) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;

        ASSERT_OK(tick_estimate_new(&t));
        feed_chain(t, 0, 7, 0, 4 * MS, TICK_ESTIMATE_GAPS);
        ASSERT_TRUE(!tick_estimate_enough(t));
        feed_chain(t, 0, 7, TICK_ESTIMATE_GAPS * 4 * MS, 4 * MS, 1);
        ASSERT_TRUE(tick_estimate_enough(t));
}

/* Timer and trace latency: tens of µs either way; the reports' runtime= as the kernel measures it. */
TEST(jitter) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;
        uint64_t prev_ns = 0, now_ns;

        ASSERT_OK(tick_estimate_new(&t));
        for (unsigned i = 0; i < 100; i++) {
                now_ns = 1000 * MS + i * 4 * MS + (i * 7919 % 101) * 1000; /* 0..100 µs late */
                SchedEvent ev = runtime_ev(0, 400, now_ns, i ? now_ns - prev_ns - 20000 : 4 * MS);

                tick_estimate_event(t, &ev);
                prev_ns = now_ns;
        }
        ASSERT_EQ(tick_estimate_result(t, &res), 250);
        ASSERT_EQ(res.gaps, 99);
}

/* A report after an update_curr() the trace does not show (a runtime >= 1 ms filter, IRQ work): not a tick gap. */
TEST(runtime_must_cover_the_gap) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;

        ASSERT_OK(tick_estimate_new(&t));
        for (unsigned i = 0; i < 100; i++) {
                SchedEvent ev = runtime_ev(0, 400, 1000 * MS + i * 4 * MS, 1 * MS);

                tick_estimate_event(t, &ev);
        }
        ASSERT_ERROR(tick_estimate_result(t, &res), ENODATA);
        ASSERT_EQ(res.gaps, 0);
}

/* Two tasks taking turns on a CPU, a switch between each report: no gap is one task's. */
TEST(other_task_or_switch_breaks_the_chain) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;

        ASSERT_OK(tick_estimate_new(&t));
        for (unsigned i = 0; i < 100; i++) {
                SchedEvent ev = runtime_ev(0, 400 + (int32_t) (i % 2), 1000 * MS + i * 4 * MS, 4 * MS);

                tick_estimate_event(t, &ev);
        }
        for (unsigned i = 0; i < 100; i++) {
                SchedEvent sw = switch_ev(1, 2000 * MS + i * 4 * MS - 1000, 500);
                SchedEvent ev = runtime_ev(1, 500, 2000 * MS + i * 4 * MS, 4 * MS);

                tick_estimate_event(t, &sw);
                tick_estimate_event(t, &ev);
        }
        ASSERT_ERROR(tick_estimate_result(t, &res), ENODATA);
        ASSERT_EQ(res.gaps, 0);
}

/*
 * Reports between ticks (a wake-up's update_curr() on that runqueue) split a tick's gap into two that each look
 * like another HZ's (1 ms, 3 ms): they vote, but the whole tick gaps stay the majority.
 */
TEST(updates_between_ticks) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;
        uint64_t t_ns = 1000 * MS;

        ASSERT_OK(tick_estimate_new(&t));
        for (unsigned i = 0; i < 60; i++) {
                SchedEvent tick = runtime_ev(2, 600, t_ns, 4 * MS);

                tick_estimate_event(t, &tick);
                if (i % 3 == 0) {
                        /* 1 ms after the tick, then the next tick 3 ms later */
                        SchedEvent mid = runtime_ev(2, 600, t_ns + 1 * MS, 1 * MS);
                        SchedEvent next = runtime_ev(2, 600, t_ns + 4 * MS, 3 * MS);

                        tick_estimate_event(t, &mid);
                        tick_estimate_event(t, &next);
                        t_ns += 4 * MS;
                }
                t_ns += 4 * MS;
        }
        ASSERT_EQ(tick_estimate_result(t, &res), 250);
        ASSERT_EQ(res.votes, 59);       /* 20 gaps voted for HZ=1000, 20 for HZ=300 */
        ASSERT_EQ(res.gaps, 99);
}

TEST(too_few) {
        TickEstimateResult res;

        ASSERT_ERROR(estimate_chain(4 * MS, TICK_ESTIMATE_VOTES_MIN, &res), ENODATA); /* n - 1 gaps */
        ASSERT_EQ(res.gaps, TICK_ESTIMATE_VOTES_MIN - 1);
        ASSERT_EQ(estimate_chain(4 * MS, TICK_ESTIMATE_VOTES_MIN + 1, &res), 250);
        /* A spacing that is no standard tick (2 ms): nothing votes. */
        ASSERT_ERROR(estimate_chain(2 * MS, 100, &res), ENODATA);
        ASSERT_EQ(res.gaps, 0);
}

TEST(no_majority) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;

        ASSERT_OK(tick_estimate_new(&t));
        feed_chain(t, 0, 400, 1000 * MS, 1 * MS, 33);
        feed_chain(t, 1, 401, 1000 * MS, 4 * MS, 33);
        ASSERT_ERROR(tick_estimate_result(t, &res), ENOTUNIQ);
        ASSERT_EQ(res.gaps, 64);
}

TEST(cpu_out_of_range_ignored) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;

        ASSERT_OK(tick_estimate_new(&t));
        feed_chain(t, -1, 400, 0, 4 * MS, 100);
        feed_chain(t, 1 << 20, 400, 0, 4 * MS, 100);
        ASSERT_ERROR(tick_estimate_result(t, &res), ENODATA);
        ASSERT_EQ(res.gaps, 0);
}

DEFINE_TEST_MAIN
