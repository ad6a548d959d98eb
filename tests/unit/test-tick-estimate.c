/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for tick-estimate.c: the tick of the kernel that recorded a trace, from its sched_stat_runtime reports.
 * Each standard HZ from clean reports; jitter; ticks of several tasks; reports off the grid (between ticks, at
 * switches, a workload's own timer) that must not win; too few; reports at random phases.
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
        ASSERT_U64_EQ(res.on_grid, 65);
        ASSERT_U64_EQ(res.reports, 65);
        ASSERT_EQ(estimate_chain(4 * MS, 65, &res), 250);
        ASSERT_EQ(estimate_chain(3333333, 65, &res), 300);
        ASSERT_EQ(estimate_chain(10 * MS, 65, &res), 100);
        /* perf script's µs: 3.333 ms */
        ASSERT_EQ(estimate_chain(3333000, 65, &res), 300);
}

TEST(enough_after_the_reports) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;

        ASSERT_OK(tick_estimate_new(&t));
        feed_chain(t, 0, 7, 0, 4 * MS, TICK_ESTIMATE_ENOUGH);
        ASSERT_TRUE(!tick_estimate_enough(t));
        /* beyond chance: a few more than TICK_ESTIMATE_ENOUGH reports */
        feed_chain(t, 0, 7, TICK_ESTIMATE_ENOUGH * 4 * MS, 4 * MS, 8);
        ASSERT_TRUE(tick_estimate_enough(t));
}

/* Timer and trace latency: tens of µs either way; the reports' runtime= as the kernel measures it. */
TEST(jitter) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;
        uint64_t prev_ns = 0, now_ns;

        ASSERT_OK(tick_estimate_new(&t));
        for (unsigned i = 0; i < 100; i++) {
                now_ns = 1000 * MS + i * 4 * MS + (i * 7919 % 61) * 1000; /* 0..60 µs late */
                SchedEvent ev = runtime_ev(0, 400, now_ns, i ? now_ns - prev_ns - 20000 : 4 * MS);

                tick_estimate_event(t, &ev);
                prev_ns = now_ns;
        }
        ASSERT_EQ(tick_estimate_result(t, &res), 250);
        ASSERT_TRUE(res.on_grid >= 60);
}

/* The tick reports whichever task runs: two tasks taking turns, a switch between each report, are its grid. */
TEST(ticks_of_any_task) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;

        ASSERT_OK(tick_estimate_new(&t));
        for (unsigned i = 0; i < 100; i++) {
                SchedEvent sw = switch_ev(1, 2000 * MS + i * 4 * MS + 1000, 500 + (int32_t) (i % 2));
                SchedEvent ev = runtime_ev(1, 500 + (int32_t) (i % 2), 2000 * MS + i * 4 * MS, 4 * MS);

                tick_estimate_event(t, &ev);
                tick_estimate_event(t, &sw);
        }
        ASSERT_EQ(tick_estimate_result(t, &res), 250);
        ASSERT_U64_EQ(res.on_grid, 100);
}

/*
 * Reports between ticks (a wake-up's update_curr() on that runqueue) fall off the grid: 1 ms after every third
 * tick, a third of the reports, which a 1 ms grid takes too and the 4 ms one does not; the 4 ms one still wins.
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
                        SchedEvent mid = runtime_ev(2, 600, t_ns + 1 * MS, 1 * MS);
                        SchedEvent next = runtime_ev(2, 600, t_ns + 4 * MS, 3 * MS);

                        tick_estimate_event(t, &mid);
                        tick_estimate_event(t, &next);
                        t_ns += 4 * MS;
                }
                t_ns += 4 * MS;
        }
        ASSERT_EQ(tick_estimate_result(t, &res), 250);
        ASSERT_U64_EQ(res.reports, 100);
        ASSERT_U64_EQ(res.on_grid, 80);
}

/*
 * A task with a steady duty cycle on a HZ=250 kernel: 30 % of 16 ms is 4.75 ms, a tick 3.75 ms after it starts and
 * its switch-out 1 ms after that, every period; the report just before each switch is the switch's own
 * update_curr(), and its 1 ms after the tick is no tick. Beside it a hog's ticks, fewer. (The gaps between
 * reports voted HZ=1000 here: the oracle's loaded p30 replayed on a 1 ms tick.)
 */
TEST(switch_reports_are_no_ticks) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;

        ASSERT_OK(tick_estimate_new(&t));
        for (unsigned i = 0; i < 40; i++) {
                uint64_t start_ns = 1000 * MS + i * 16 * MS + 250000;
                SchedEvent in = switch_ev(1, start_ns, 700);
                SchedEvent tick = runtime_ev(1, 700, start_ns + 3750000, 3750000);
                SchedEvent last = runtime_ev(1, 700, start_ns + 4750000, 1 * MS);
                SchedEvent out = switch_ev(1, start_ns + 4752000, 0);

                tick_estimate_event(t, &in);
                tick_estimate_event(t, &tick);
                tick_estimate_event(t, &last);
                tick_estimate_event(t, &out);
                if (i % 2 == 0) /* the hog: two reports 4 ms apart every other period */
                        feed_chain(t, 0, 800, start_ns - 250000, 4 * MS, 2);
        }
        ASSERT_EQ(tick_estimate_result(t, &res), 250);
}

/*
 * A workload's own 1 ms timer (clock_nanosleep() on an absolute grid, as tests/helpers/storm does with its
 * forks) puts four reports on a 1 ms grid for every tick of a 4 ms one; a hog on the other CPU runs 4 ms
 * between its reports, which no 1 ms tick allows.
 */
TEST(timer_grid_outlasted) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;

        ASSERT_OK(tick_estimate_new(&t));
        for (unsigned i = 0; i < 50; i++) {
                uint64_t tick_ns = 1000 * MS + i * 4 * MS;

                for (unsigned k = 0; k < 4; k++) {
                        SchedEvent in = switch_ev(0, tick_ns + k * MS + 300000, 900 + (int32_t) k);
                        SchedEvent ev = runtime_ev(0, 900 + (int32_t) k, tick_ns + k * MS + 300000 + 20000, 20000);
                        SchedEvent out = switch_ev(0, tick_ns + k * MS + 300000 + 21000, 0);

                        tick_estimate_event(t, &in);
                        tick_estimate_event(t, &ev);
                        tick_estimate_event(t, &out);
                }
                feed_chain(t, 1, 800, tick_ns, 4 * MS, 1);
        }
        ASSERT_EQ(tick_estimate_result(t, &res), 250);
        ASSERT_U64_EQ(res.on_grid, 100); /* each of the timer's four phases holds 50 too */
}

TEST(too_few) {
        TickEstimateResult res;

        ASSERT_ERROR(estimate_chain(4 * MS, TICK_ESTIMATE_MIN, &res), ENODATA);
        ASSERT_U64_EQ(res.reports, TICK_ESTIMATE_MIN);
        ASSERT_EQ(estimate_chain(4 * MS, TICK_ESTIMATE_MIN + 4, &res), 250);
}

/* Reports at random phases (short runs, no grid): no tick. */
TEST(no_grid) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;
        uint64_t t_ns = 1000 * MS, x = 88172645463325252ULL;

        ASSERT_OK(tick_estimate_new(&t));
        for (unsigned i = 0; i < 2000; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
                t_ns += 100000 + x % (3 * MS);
                SchedEvent ev = runtime_ev(0, 400, t_ns, 50000);
                SchedEvent out = switch_ev(0, t_ns + 1000, 0);

                tick_estimate_event(t, &ev);
                tick_estimate_event(t, &out);
        }
        ASSERT_ERROR(tick_estimate_result(t, &res), ENODATA);
        ASSERT_U64_EQ(res.reports, 2000);
}

TEST(cpu_out_of_range_ignored) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TickEstimateResult res;

        ASSERT_OK(tick_estimate_new(&t));
        feed_chain(t, -1, 400, 0, 4 * MS, 100);
        feed_chain(t, 1 << 20, 400, 0, 4 * MS, 100);
        ASSERT_ERROR(tick_estimate_result(t, &res), ENODATA);
        ASSERT_U64_EQ(res.reports, 0);
}

DEFINE_TEST_MAIN
