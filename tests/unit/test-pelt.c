/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-pelt.c: PELT arithmetic against the reference values of shared/reference/schedutil.md §1.6 (an
 * integer simulation of kernel/sched/pelt.c with the sched-pelt.h table). Every table there is checked.
 */

#include "macro.h"
#include "pelt.h"
#include "test.h"

#define MSEC_NS UINT64_C(1000000)

/* Runs (or sleeps) from period @from to period @to, one update per period boundary. */
static void run_periods(PeltSignal *s, unsigned from, unsigned to, bool running) {
        for (unsigned k = from + 1; k <= to; k++)
                (void) pelt_update(s, k * PELT_PERIOD_NS, running);
}

TEST(decay_load) {
        ASSERT_U64_EQ(pelt_decay_load(1024, 0), 1023);           /* inv[0] = 2^32 - 1 */
        ASSERT_U64_EQ(pelt_decay_load(1024, 1), 1002);
        ASSERT_U64_EQ(pelt_decay_load(LOAD_AVG_MAX, 1), PELT_MIN_DIVIDER);
        ASSERT_U64_EQ(pelt_decay_load(1 << 20, 32), (1 << 19) - 1); /* y^32 = 1/2 (inv[0] rounds down) */
        ASSERT_U64_EQ(pelt_decay_load(1 << 20, 64), (1 << 18) - 1);
        ASSERT_U64_EQ(pelt_decay_load(UINT32_MAX, LOAD_AVG_PERIOD * 63), 0);  /* >> 63 of a u32 */
        ASSERT_U64_EQ(pelt_decay_load(UINT64_MAX, LOAD_AVG_PERIOD * 63 + 1), 0);
        ASSERT_U64_EQ(pelt_decay_load(0, 5), 0);
}

/* §1.6, period-aligned: running k periods from 0. */
TEST(ramp_period_aligned) {
        static const struct { unsigned k, util; } table[] = {
                { 1, 21 }, { 2, 43 }, { 4, 85 }, { 8, 163 }, { 16, 300 }, { 32, 512 }, { 64, 768 },
                { 100, 907 }, { 200, 1011 }, { 345, 1024 },
        };
        PeltSignal s = {};
        unsigned k = 0;

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                run_periods(&s, k, table[i].k, true);
                k = table[i].k;
                ASSERT_EQ(s.util_avg, table[i].util);
        }
}

/* §1.6: "the update granularity does not change these values": every 1 us, every period or once. */
TEST(ramp_granularity) {
        PeltSignal once = {}, per_period = {}, per_us = {};
        uint64_t end = 32 * PELT_PERIOD_NS;

        ASSERT_TRUE(pelt_update(&once, end, true));
        run_periods(&per_period, 0, 32, true);
        for (uint64_t t = 1024; t <= end; t += 1024)
                (void) pelt_update(&per_us, t, true);

        ASSERT_EQ(once.util_avg, 512);
        ASSERT_EQ(per_period.util_avg, 512);
        ASSERT_EQ(per_us.util_avg, 512);
}

/* §1.6: idle k periods after saturation (util_sum 47883609). */
TEST(decay_after_saturation) {
        static const struct { unsigned k, util; } table[] = {
                { 1, 1002 }, { 8, 861 }, { 16, 724 }, { 32, 512 }, { 64, 256 }, { 100, 117 }, { 200, 13 },
        };
        PeltSignal s = {};
        unsigned base = 3000, k = 0;

        /* Run until util_sum stops growing: its integer limit. */
        run_periods(&s, 0, base, true);
        ASSERT_EQ(s.util_avg, 1024);
        ASSERT_U64_EQ(s.util_sum, 47883609);

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                run_periods(&s, base + k, base + table[i].k, false);
                k = table[i].k;
                ASSERT_EQ(s.util_avg, table[i].util);
        }
}

static void duty_cycle(unsigned on, unsigned off, unsigned *ret_peak, unsigned *ret_trough) {
        PeltSignal s = {};
        unsigned k = 0;

        for (unsigned cycle = 0; cycle < 200; cycle++) {
                run_periods(&s, k, k + on, true);
                k += on;
                *ret_peak = s.util_avg;
                run_periods(&s, k, k + off, false);
                k += off;
                *ret_trough = s.util_avg;
        }
}

/* §1.6: steady-state duty cycles, period-aligned, after 200 cycles. */
TEST(duty_cycles) {
        unsigned peak = 0, trough = 0;

        duty_cycle(4, 4, &peak, &trough);
        ASSERT_EQ(peak, 534);
        ASSERT_EQ(trough, 490);

        duty_cycle(1, 3, &peak, &trough);
        ASSERT_EQ(peak, 264);
        ASSERT_EQ(trough, 247);
}

/* §1.6: wall clock, update(now) at now = 1, 2, 3 ... ms, running from 0. */
TEST(ramp_wall_clock_1ms) {
        static const struct { unsigned ms, util; } table[] = {
                { 1, 0 }, { 4, 81 }, { 8, 156 }, { 16, 288 }, { 32, 495 }, { 64, 751 }, { 100, 894 },
                { 200, 1008 }, { 345, 1023 }, { 400, 1024 },
        };
        PeltSignal s = {};
        size_t i = 0;

        for (unsigned ms = 1; ms <= 400; ms++) {
                bool decayed = pelt_update(&s, ms * MSEC_NS, true);

                /* 1 ms is 976 PELT us: no boundary yet, util_avg is stale (0). */
                if (ms == 1)
                        ASSERT_TRUE(!decayed);
                if (i < ELEMENTSOF(table) && table[i].ms == ms) {
                        ASSERT_EQ(s.util_avg, table[i].util);
                        i++;
                }
        }
        ASSERT_EQ(i, ELEMENTSOF(table));
}

/* §1.6: sleep after 2000 ms of continuous running, still on 1 ms updates. */
TEST(sleep_wall_clock_1ms) {
        static const struct { unsigned ms, util; } table[] = {
                { 4, 943 }, { 8, 886 }, { 16, 736 }, { 32, 528 }, { 64, 273 }, { 100, 129 }, { 200, 16 },
        };
        PeltSignal s = {};
        size_t i = 0;

        for (unsigned ms = 1; ms <= 2000; ms++)
                (void) pelt_update(&s, ms * MSEC_NS, true);

        for (unsigned ms = 1; ms <= 200; ms++) {
                (void) pelt_update(&s, (2000 + ms) * MSEC_NS, false);
                if (i < ELEMENTSOF(table) && table[i].ms == ms) {
                        ASSERT_EQ(s.util_avg, table[i].util);
                        i++;
                }
        }
        ASSERT_EQ(i, ELEMENTSOF(table));
}

/*
 * A weight above 1 is the cfs_rq's runnable_sum: "runnable_sum += runnable * contrib << SCHED_CAPACITY_SHIFT".
 * Two tasks always runnable saturate at twice the scale; the same steps at weight 1 give the util table.
 */
TEST(weight) {
        PeltSignal one = {}, two = {};

        for (unsigned k = 1; k <= 400; k++) {
                (void) pelt_update(&one, k * PELT_PERIOD_NS, 1);
                (void) pelt_update(&two, k * PELT_PERIOD_NS, 2);
        }
        ASSERT_EQ(one.util_avg, 1024);
        /* 2 x 47742-based sum / divider: the kernel's integer arithmetic lands one above 2048 */
        ASSERT_TRUE(two.util_avg >= 2047 && two.util_avg <= 2049);
}

/*
 * Nanoseconds throughout: the sub-1024 ns remainder of each step is carried to the next one, so a signal fed
 * every 2 us (or at odd ns) ends where one fed every 1 ms does, running and sleeping alike.
 */
TEST(granularity_independent) {
        PeltSignal fine = {}, odd = {}, coarse = {};
        uint64_t t;

        for (t = 2000; t <= 300 * MSEC_NS; t += 2000)
                (void) pelt_update(&fine, t, t <= 200 * MSEC_NS);
        for (t = 777; t <= 300 * MSEC_NS; t += 1777)
                (void) pelt_update(&odd, t, t <= 200 * MSEC_NS);
        (void) pelt_update(&odd, 300 * MSEC_NS, 0);
        for (t = MSEC_NS; t <= 300 * MSEC_NS; t += MSEC_NS)
                (void) pelt_update(&coarse, t, t <= 200 * MSEC_NS);
        ASSERT_TRUE(coarse.util_avg > 0);
        ASSERT_EQ(fine.util_avg, coarse.util_avg);
        /* The odd feed crosses the 200 ms edge mid-step, so allow the one step's worth at the edge. */
        ASSERT_TRUE(odd.util_avg + 2 >= coarse.util_avg && odd.util_avg <= coarse.util_avg + 2);
}

TEST(update_semantics) {
        PeltSignal s = {};

        /* Less than 1024 ns: nothing moves, the remainder is kept for later. */
        ASSERT_TRUE(!pelt_update(&s, 1023, true));
        ASSERT_U64_EQ(s.last_update_time_ns, 0);

        /* 1500 ns = one unit + 476 ns carried: last_update advances by whole units only. */
        ASSERT_TRUE(!pelt_update(&s, 1500, true));
        ASSERT_U64_EQ(s.last_update_time_ns, 1024);
        ASSERT_EQ(s.period_contrib, 1);
        ASSERT_U64_EQ(s.util_sum, 1 << 10);

        /* Crossing the boundary recomputes util_avg. */
        ASSERT_TRUE(pelt_update(&s, PELT_PERIOD_NS, true));
        ASSERT_EQ(s.util_avg, 21);
        ASSERT_EQ(s.period_contrib, 0);

        /* A clock going backwards resets the reference point only. */
        ASSERT_TRUE(!pelt_update(&s, 1000, true));
        ASSERT_U64_EQ(s.last_update_time_ns, 1000);
        ASSERT_EQ(s.util_avg, 21);

        /* Not running: pure decay, scales don't matter. */
        pelt_reset(&s, 5 * PELT_PERIOD_NS);
        ASSERT_U64_EQ(s.last_update_time_ns, 5 * PELT_PERIOD_NS);
        ASSERT_TRUE(pelt_update(&s, 100 * PELT_PERIOD_NS, 0));
        ASSERT_EQ(s.util_avg, 0);
        ASSERT_U64_EQ(s.util_sum, 0);

        /* A huge idle gap (a daemon starting at CLOCK_MONOTONIC = days) is O(1) and harmless. */
        s = (PeltSignal) {};
        ASSERT_TRUE(pelt_update(&s, UINT64_C(1) << 50, false));
        ASSERT_EQ(s.util_avg, 0);
}

TEST(divider) {
        PeltSignal s = {};

        ASSERT_EQ(pelt_divider(&s), 46718);
        s.period_contrib = 1023;
        ASSERT_EQ(pelt_divider(&s), 46718 + 1023);
}

TEST(attach_detach) {
        PeltSignal cpu = {}, task = {};

        /* A CPU at 512 with its window 300 units into a period; a task at 200 from elsewhere. */
        run_periods(&cpu, 0, 32, true);
        (void) pelt_update(&cpu, 32 * PELT_PERIOD_NS + 300 * 1024, true);
        ASSERT_EQ(cpu.period_contrib, 300);
        uint32_t cpu_avg = cpu.util_avg;
        uint64_t cpu_sum = cpu.util_sum;

        task.util_avg = 200;
        task.util_sum = 12345; /* stale, from another window */
        pelt_attach(&cpu, &task);
        ASSERT_U64_EQ(task.last_update_time_ns, cpu.last_update_time_ns);
        ASSERT_EQ(task.period_contrib, 300);
        ASSERT_U64_EQ(task.util_sum, 200 * (46718 + 300));
        ASSERT_EQ(cpu.util_avg, cpu_avg + 200);
        ASSERT_U64_EQ(cpu.util_sum, cpu_sum + 200 * (46718 + 300));

        pelt_detach(&cpu, &task);
        ASSERT_EQ(cpu.util_avg, cpu_avg);
        ASSERT_U64_EQ(cpu.util_sum, cpu_sum);

        /* Detaching more than there is clamps at 0. */
        task.util_avg = 2000;
        task.util_sum = UINT64_C(1) << 40;
        pelt_detach(&cpu, &task);
        ASSERT_EQ(cpu.util_avg, 0);
        ASSERT_U64_EQ(cpu.util_sum, 0);
}

TEST(remove) {
        PeltSignal cpu = { .util_avg = 300, .util_sum = 300 * PELT_MIN_DIVIDER + 10, .period_contrib = 0 };

        pelt_remove(&cpu, 100);
        ASSERT_EQ(cpu.util_avg, 200);
        ASSERT_U64_EQ(cpu.util_sum, 200 * PELT_MIN_DIVIDER + 10);

        /* util_sum short by rounding: kept at util_avg x PELT_MIN_DIVIDER, not emptied. */
        cpu = (PeltSignal) { .util_avg = 300, .util_sum = 300 * PELT_MIN_DIVIDER - 5000, .period_contrib = 500 };
        pelt_remove(&cpu, 100);
        ASSERT_EQ(cpu.util_avg, 200);
        ASSERT_U64_EQ(cpu.util_sum, 200 * PELT_MIN_DIVIDER);

        pelt_remove(&cpu, 5000);
        ASSERT_EQ(cpu.util_avg, 0);
        ASSERT_U64_EQ(cpu.util_sum, 0);
}

DEFINE_TEST_MAIN
