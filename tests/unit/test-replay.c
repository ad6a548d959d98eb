/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for the replay driver (replay.c): bad input as FILE:LINE errors, reorderings counted, long gaps at a
 * bounded cost and with the decisions of a replay that ticks through them. The line parser: test-trace-parse.c.
 */

#include <errno.h>
#include <time.h>

#include "events.h"
#include "macro.h"
#include "replay.h"
#include "test.h"

/* ---- replay_run() ---- */

#define TRACES FIXTURES "/traces"
#define SEC_NS UINT64_C(1000000000)

typedef struct Replayed {
        int r;
        char *out;
        char *error;
        ReplayStats stats;
} Replayed;

static void replayed_done(Replayed *rp) {
        free(rp->out);
        free(rp->error);
}

/* Replays @trace (text, named "t.txt") on the topology fixture @topology_name under @cfg (NULL: defaults). */
static Replayed replay_text(const char *trace, const char *topology_name, const Config *cfg, ReplayFlags flags) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *path = NULL, *error = NULL;
        Replayed rp = { .r = -EIO };
        size_t size = 0;
        Config defaults;
        FILE *in, *out;

        if (asprintf(&path, TRACES "/%s", topology_name) < 0 || topology_load(path, &t, &error) < 0)
                return rp;
        if (!cfg) {
                config_set_defaults(&defaults);
                cfg = &defaults;
        }
        in = fmemopen((void *) trace, strlen(trace), "r");
        out = open_memstream(&rp.out, &size);
        if (in && out)
                rp.r = replay_run(in, "t.txt", t, cfg, flags, out, &rp.stats, &rp.error);
        if (in)
                fclose(in);
        if (out)
                fclose(out);
        return rp;
}

#define WAKE_CPU1 "  swapper/1     0 [001] 1.000000: sched:sched_wakeup: comm=a pid=400 prio=120 target_cpu=001\n"
#define RUN_CPU1 "  swapper/1     0 [001] 1.000000: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 " \
                 "prev_state=R ==> next_comm=a next_pid=400 next_prio=120\n"

/* Replays @trace on two-dt.ini and checks that it fails with exactly @error. */
static void assert_replay_error(const char *trace, const char *error) {
        Replayed rp = replay_text(trace, "two-dt.ini", NULL, 0);

        if (rp.r != -EINVAL || !rp.error || !streq(rp.error, error))
                fprintf(stderr, "# r=%d error=%s\n# expected: %s\n", rp.r, rp.error ? rp.error : "(none)", error);
        ASSERT_EQ(rp.r, -EINVAL);
        ASSERT_STREQ(rp.error, error);
        replayed_done(&rp);
}

TEST(error_cpu_beyond_topology) {
        assert_replay_error(WAKE_CPU1 "# a comment\n"
                            "  swapper/2     0 [002] 1.000100: sched:sched_wakeup: comm=a pid=401 prio=120 target_cpu=001\n",
                            "t.txt:3: event recorded on CPU 2 is not in the topology (CPUs 0-1): trace and topology "
                            "are from different machines?");
        /* Lines of events we do not model are skipped whatever their CPU. */
        Replayed rp = replay_text(WAKE_CPU1 "  x 1 [007] 1.000100: irq:irq_handler_entry: irq=1 name=i8042\n",
                                  "two-dt.ini", NULL, 0);
        ASSERT_EQ(rp.r, 0);
        ASSERT_U64_EQ(rp.stats.skipped, 1);
        replayed_done(&rp);
}

TEST(error_target_cpu) {
        assert_replay_error(WAKE_CPU1 RUN_CPU1
                            "  a 400 [001] 1.000100: sched:sched_wakeup_new: comm=b pid=401 prio=120 target_cpu=004\n",
                            "t.txt:3: target_cpu=4 is not in the topology (CPUs 0-1): trace and topology are from "
                            "different machines?");
        assert_replay_error("  swapper/1     0 [001] 1.000000: sched:sched_wakeup: comm=a pid=400 prio=120 "
                            "target_cpu=1024\n",
                            "t.txt:1: target_cpu=1024 is not in the topology (CPUs 0-1): trace and topology are from "
                            "different machines?");
}

TEST(error_migrate_cpus) {
        assert_replay_error(WAKE_CPU1 "  m 18 [000] 1.000100: sched:sched_migrate_task: comm=a pid=400 prio=120 "
                            "orig_cpu=9 dest_cpu=0\n",
                            "t.txt:2: orig_cpu=9 is not in the topology (CPUs 0-1): trace and topology are from "
                            "different machines?");
        assert_replay_error(WAKE_CPU1 "  m 18 [000] 1.000100: sched:sched_migrate_task: comm=a pid=400 prio=120 "
                            "orig_cpu=1 dest_cpu=2\n",
                            "t.txt:2: dest_cpu=2 is not in the topology (CPUs 0-1): trace and topology are from "
                            "different machines?");
}

TEST(error_time_backwards) {
        assert_replay_error(WAKE_CPU1 RUN_CPU1
                            "  a 400 [001] 3.500000: sched:sched_stat_runtime: comm=a pid=400 runtime=1000 [ns]\n"
                            "  swapper/0 0 [000] 2.499999: sched:sched_wakeup: comm=b pid=401 prio=120 target_cpu=000\n",
                            "t.txt:4: time goes backwards: 2.499999 is 1.000001 s before the latest event "
                            "(3.500000), more than the 1 s a reordering of perf's per-CPU buffers explains (traces "
                            "glued together?)");
}

TEST(reordering_counted) {
        /* Up to a second behind the latest event: a reordering, applied at the latest time and counted. */
        Replayed rp = replay_text(WAKE_CPU1 RUN_CPU1
                                  "  a 400 [001] 2.500000: sched:sched_stat_runtime: comm=a pid=400 runtime=1000 [ns]\n"
                                  "  swapper/0 0 [000] 2.499990: sched:sched_wakeup: comm=b pid=401 prio=120 target_cpu=000\n"
                                  "  swapper/0 0 [000] 1.500000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 "
                                  "prev_prio=120 prev_state=R ==> next_comm=b next_pid=401 next_prio=120\n"
                                  "  b 401 [000] 2.500000: sched:sched_stat_runtime: comm=b pid=401 runtime=1000 [ns]\n",
                                  "two-dt.ini", NULL, 0);

        ASSERT_EQ(rp.r, 0);
        ASSERT_U64_EQ(rp.stats.events, 6);
        ASSERT_U64_EQ(rp.stats.late_events, 2);
        ASSERT_U64_EQ(rp.stats.late_max_ns, SEC_NS);
        replayed_done(&rp);

        rp = replay_text(WAKE_CPU1 RUN_CPU1, "two-dt.ini", NULL, 0);
        ASSERT_EQ(rp.r, 0);
        ASSERT_U64_EQ(rp.stats.late_events, 0);
        ASSERT_U64_EQ(rp.stats.late_max_ns, 0);
        replayed_done(&rp);
}

/* Late events are counted, not refused: reordered.txt has two, 50 and 30 µs behind an earlier line. */
static void replay_fixture_stats(const char *trace, ReplayStats *stats) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL, *path = NULL;
        Config cfg;
        FILE *in, *out;

        config_set_defaults(&cfg);
        ASSERT_OK(topology_load(TRACES "/two-dt.ini", &t, &error));
        ASSERT_TRUE(asprintf(&path, "%s/%s", TRACES, trace) > 0);
        in = fopen(path, "re");
        out = fopen("/dev/null", "we");
        ASSERT_TRUE(in && out);
        ASSERT_OK(replay_run(in, trace, t, &cfg, 0, out, stats, &error));
        fclose(in);
        fclose(out);
}

TEST(reordered_events_counted) {
        ReplayStats stats = {};

        replay_fixture_stats("reordered.txt", &stats);
        ASSERT_U64_EQ(stats.late_events, 2);
        ASSERT_U64_EQ(stats.late_max_ns, 50 * UINT64_C(1000));
        ASSERT_U64_EQ(stats.events, 6);
}

/* The showcase trace is in time order, as perf script prints a recording (issue #24). */
TEST(article_in_order) {
        ReplayStats stats = {};

        replay_fixture_stats("article.txt", &stats);
        ASSERT_U64_EQ(stats.late_events, 0);
        ASSERT_U64_EQ(stats.events, 192);
}

TEST(empty_topology) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        Config cfg;
        FILE *in;

        config_set_defaults(&cfg);
        ASSERT_OK(topology_new(&t));
        in = fmemopen((void *) WAKE_CPU1, strlen(WAKE_CPU1), "r");
        ASSERT_TRUE(in);
        ASSERT_EQ(replay_run(in, "t.txt", t, &cfg, 0, stdout, NULL, &error), -EINVAL);
        fclose(in);
        ASSERT_STREQ(error, "the topology has no policy (no [policyN] section): nothing to replay");
}

static uint64_t now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * SEC_NS + (uint64_t) ts.tv_nsec;
}

/*
 * cpu1 busy from 1.0 s, a wake-up on cpu0 10^7 s later (perf script's µs style). A gap costs at most
 * REPLAY_GAP_TICKS_MAX (15000) ticks and a second's (250) more, not 2.5 x 10^9: cheap whatever its length.
 */
TEST(gap_cost_bounded) {
        static const char trace[] = WAKE_CPU1 RUN_CPU1
                "  swapper/0     0 [000] 10000001.000000: sched:sched_wakeup: comm=b pid=401 prio=120 target_cpu=000\n";
        uint64_t start_ns = now_ns();
        Replayed rp = replay_text(trace, "two-dt.ini", NULL, 0);
        uint64_t took_ns = now_ns() - start_ns;

        fprintf(stderr, "# 10^7 s gap: %" PRIu64 " ticks, %" PRIu64 " us\n", rp.stats.ticks, took_ns / 1000);
        ASSERT_EQ(rp.r, 0);
        ASSERT_TRUE(rp.stats.ticks <= 15000 + 250 + 1);
        ASSERT_TRUE(took_ns < 5 * SEC_NS); /* generous: sanitizers, a loaded machine */
        replayed_done(&rp);
}

/* ---- the gap rule against a replay that ticks through every gap ---- */

typedef struct Reference {
        FILE *out;
        const Topology *topo;
} Reference;

static int on_reference_decision(const Decision *d, void *userdata) {
        Reference *ref = userdata;

        decision_print(ref->out, d, ref->topo);
        return 0;
}

static void print_final_state(FILE *f, unsigned cpu, const CpuState *cs) {
        fprintf(f, "cpu=%u util=%u util_est=%u runnable=%u rt=%u eff=%u\n", cpu, cs->util_avg, cs->util_est_sum,
                cs->runnable_avg, cs->rt_avg, cs->effective);
}

/*
 * What replay_run() did before it skipped ticks: every tick of every gap, as the kernel ticks a busy CPU. Writes
 * the decisions, then each CPU's final signals in --print-util's format (without t=).
 */
static int replay_every_tick(const char *trace, const Topology *t, const Config *cfg, FILE *out) {
        _cleanup_(engine_freep) Engine *e = NULL;
        Reference ref = { .out = out, .topo = t };
        uint64_t tick_ns = config_tick_ns(cfg), next_tick_ns = 0; /* GAP_TRACE has no sched_stat_runtime: 4 ms */
        bool ticking = false;
        int r;

        r = engine_new(t, cfg, on_reference_decision, &ref, &e);
        if (r < 0)
                return r;
        for (const char *line = trace; *line; line = strchr(line, '\n') + 1) {
                const char *reason;
                SchedEvent ev;

                if (trace_parse_line(line, &ev, &reason) != TRACE_LINE_EVENT)
                        return -EINVAL;
                for (; ticking && next_tick_ns <= ev.time_ns; next_tick_ns += tick_ns)
                        ticking = engine_tick(e, next_tick_ns) > 0;
                if (ev.type == SCHED_EVENT_RUNTIME)
                        engine_set_runtime_reported(e, true);
                if (engine_event(e, &ev) < 0)
                        return -ENOMEM;
                if (!ticking && engine_busy(e)) {
                        ticking = true;
                        next_tick_ns = (ev.time_ns / tick_ns + 1) * tick_ns;
                }
        }
        for (unsigned cpu = 0; cpu < 2; cpu++) {
                CpuState cs;

                if (engine_cpu_state(e, cpu, &cs) < 0)
                        return -EINVAL;
                print_final_state(out, cpu, &cs);
        }
        return 0;
}

/* replay_run()'s --print-util output reduced to the same: decision lines, then each CPU's last signals. */
static char *reduce(const char *out) {
        char *last[2] = {}, *ret = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&ret, &size);

        if (!f)
                return NULL;
        for (const char *line = out; *line; line = strchr(line, '\n') + 1) {
                const char *end = strchr(line, '\n'), *cpu = strstr(line, " cpu=");

                if (!end)
                        break;
                if (strstr(line, " policy=") && strstr(line, " policy=") < end)
                        fprintf(f, "%.*s\n", (int) (end - line), line);
                else if (cpu && cpu < end && cpu[5] >= '0' && cpu[5] <= '1') {
                        free(last[cpu[5] - '0']);
                        last[cpu[5] - '0'] = strndup(cpu + 1, (size_t) (end - cpu));
                }
        }
        for (unsigned i = 0; i < 2; i++) {
                fputs(last[i] ? last[i] : "(none)\n", f);
                free(last[i]);
        }
        fclose(f);
        return ret;
}

static void assert_gap_as_every_tick(const char *trace, const char *topology_name, const Config *cfg) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *path = NULL, *error = NULL, *expected = NULL, *got = NULL;
        Replayed rp = replay_text(trace, topology_name, cfg, REPLAY_PRINT_UTIL);
        size_t size = 0;
        FILE *f;

        ASSERT_EQ(rp.r, 0);
        ASSERT_TRUE(asprintf(&path, TRACES "/%s", topology_name) > 0);
        ASSERT_OK(topology_load(path, &t, &error));
        f = open_memstream(&expected, &size);
        ASSERT_TRUE(f);
        ASSERT_OK(replay_every_tick(trace, t, cfg, f));
        fclose(f);
        got = reduce(rp.out);
        if (!got || !streq(got, expected))
                fprintf(stderr, "# expected (every tick):\n%s# got:\n%s", expected, got ? got : "(null)\n");
        ASSERT_STREQ(got, expected);
        ASSERT_TRUE(rp.stats.ticks < 60 * SEC_NS / config_tick_ns(cfg) / 2); /* ticks were skipped */
        replayed_done(&rp);
}

#define GAP_TRACE(busy_cpu) \
        "  swapper/1     0 [001] 0.900000: sched:sched_wakeup: comm=s pid=500 prio=120 target_cpu=001\n" \
        "  swapper/1     0 [001] 0.900000: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 " \
        "prev_state=R ==> next_comm=s next_pid=500 next_prio=120\n" \
        "  s           500 [001] 1.000000: sched:sched_switch: prev_comm=s prev_pid=500 prev_prio=120 prev_state=S " \
        "==> next_comm=swapper/1 next_pid=0 next_prio=120\n" \
        "  swapper/" busy_cpu " 0 [00" busy_cpu "] 1.000000: sched:sched_wakeup: comm=b pid=400 prio=120 " \
        "target_cpu=00" busy_cpu "\n" \
        "  swapper/" busy_cpu " 0 [00" busy_cpu "] 1.000000: sched:sched_switch: prev_comm=swapper/" busy_cpu \
        " prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=400 next_prio=120\n" \
        "  swapper/1     0 [001] 61.000000: sched:sched_wakeup: comm=s pid=500 prio=120 target_cpu=001\n" \
        "  swapper/1     0 [001] 61.000000: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 " \
        "prev_state=R ==> next_comm=s next_pid=500 next_prio=120\n" \
        "  s           500 [001] 61.002000: sched:sched_switch: prev_comm=s prev_pid=500 prev_prio=120 " \
        "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"

/*
 * A 60 s gap while a CPU is busy (and the other's blocked load decays): the same decisions and the same
 * signals after it as when every tick is replayed. With a 4 s rate limit the ramp's second change comes 4 s
 * into the gap, which a fixed cap on the ticks replayed (3 s) missed: it came at the end of the gap.
 */
TEST(gap_as_every_tick) {
        Config cfg;

        config_set_defaults(&cfg);
        assert_gap_as_every_tick(GAP_TRACE("0"), "two-dt.ini", &cfg);
        assert_gap_as_every_tick(GAP_TRACE("0"), "little.ini", &cfg);
        cfg.rate_limit_usec = 4000000;
        assert_gap_as_every_tick(GAP_TRACE("0"), "two-dt.ini", &cfg);
        assert_gap_as_every_tick(GAP_TRACE("0"), "little.ini", &cfg);
}

/* ---- tick_ms = auto: the trace's tick, from its sched_stat_runtime reports ---- */

/*
 * A task busy on cpu1 for @busy_ms, reporting sched_stat_runtime every @period_us (each covering its gap), then
 * asleep; @extra_lines more switch pairs on cpu0 after it (a long trace). malloc'd.
 */
static char *runtime_trace(unsigned period_us, unsigned busy_ms, unsigned extra_pairs) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        fputs(WAKE_CPU1 RUN_CPU1, f);
        for (unsigned t_us = period_us; t_us < busy_ms * 1000; t_us += period_us)
                fprintf(f, "  a 400 [001] 1.%06u: sched:sched_stat_runtime: comm=a pid=400 runtime=%u [ns]\n", t_us,
                        period_us * 1000);
        fprintf(f, "  a 400 [001] 1.%06u: sched:sched_switch: prev_comm=a prev_pid=400 prev_prio=120 prev_state=S "
                "==> next_comm=swapper/1 next_pid=0 next_prio=120\n", busy_ms * 1000);
        for (unsigned i = 0; i < extra_pairs; i++) {
                unsigned s_ms = 2000 + i * 4;

                fprintf(f, "  swapper/0 0 [000] %u.%03u000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 "
                        "prev_prio=120 prev_state=R ==> next_comm=b next_pid=401 next_prio=120\n", s_ms / 1000,
                        s_ms % 1000);
                fprintf(f, "  b 401 [000] %u.%03u000: sched:sched_switch: prev_comm=b prev_pid=401 prev_prio=120 "
                        "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n", (s_ms + 3) / 1000,
                        (s_ms + 3) % 1000);
        }
        fclose(f);
        return text;
}

static void replay_with_tick(const char *trace, uint64_t tick_usec, ReplayFlags flags, Replayed *ret) {
        Config cfg;

        config_set_defaults(&cfg);
        cfg.tick_usec = tick_usec;
        *ret = replay_text(trace, "two-dt.ini", &cfg, flags);
}

/* A CONFIG_HZ=1000 trace: auto measures 1 ms and replays exactly as tick_ms = 1 does; tick_ms = 4 still wins. */
TEST(tick_measured_hz1000) {
        _cleanup_free_ char *trace = runtime_trace(1000, 200, 0);
        _cleanup_(replayed_done) Replayed aut = {}, one = {}, four = {};

        ASSERT_TRUE(trace);
        replay_with_tick(trace, 0, REPLAY_PRINT_UTIL, &aut);
        replay_with_tick(trace, 1000, REPLAY_PRINT_UTIL, &one);
        replay_with_tick(trace, 4000, REPLAY_PRINT_UTIL, &four);
        ASSERT_EQ(aut.r, 0);
        ASSERT_EQ(one.r, 0);
        ASSERT_EQ(four.r, 0);

        ASSERT_EQ(aut.stats.tick_source, REPLAY_TICK_MEASURED);
        ASSERT_EQ(aut.stats.tick_hz, 1000);
        ASSERT_U64_EQ(aut.stats.tick_ns, 1000000);
        ASSERT_EQ(one.stats.tick_source, REPLAY_TICK_CONFIG);
        ASSERT_EQ(four.stats.tick_source, REPLAY_TICK_CONFIG);
        ASSERT_U64_EQ(four.stats.tick_ns, 4000000);

        /* Every line read ahead was replayed, once, in order. */
        ASSERT_U64_EQ(aut.stats.lines, one.stats.lines);
        ASSERT_U64_EQ(aut.stats.events, one.stats.events);
        ASSERT_STREQ(aut.out, one.out);
        ASSERT_U64_EQ(aut.stats.ticks, one.stats.ticks);
        /*
         * A 1 ms tick ticks four times as often as a 4 ms one over the same 200 ms. (The decisions are the same:
         * the reports are the kernel's own ticks. tests/fixtures/traces/hz1000.txt shows one that is not.)
         */
        ASSERT_TRUE(aut.stats.ticks >= 3 * four.stats.ticks);
}

/* HZ=250 spacing measures the default's tick, but says it was measured. */
TEST(tick_measured_hz250) {
        _cleanup_free_ char *trace = runtime_trace(4000, 400, 0);
        _cleanup_(replayed_done) Replayed aut = {};

        ASSERT_TRUE(trace);
        replay_with_tick(trace, 0, REPLAY_TABLE | REPLAY_SUMMARY, &aut);
        ASSERT_EQ(aut.r, 0);
        ASSERT_EQ(aut.stats.tick_source, REPLAY_TICK_MEASURED);
        ASSERT_EQ(aut.stats.tick_hz, 250);
        ASSERT_TRUE(strstr(aut.out, "\n  tick            4 ms (HZ=250: 68 of 68 sched_stat_runtime on its grid)\n"));
}

/*
 * No sched_stat_runtime: the default after the whole lookahead (REPLAY_LOOKAHEAD_LINES), and the lines beyond it
 * streamed: the same replay as tick_ms = 4.
 */
TEST(tick_default_past_the_lookahead) {
        _cleanup_free_ char *trace = runtime_trace(1000, 0, REPLAY_LOOKAHEAD_LINES / 2 + 100);
        _cleanup_(replayed_done) Replayed aut = {}, four = {};

        ASSERT_TRUE(trace);
        replay_with_tick(trace, 0, REPLAY_TABLE | REPLAY_SUMMARY, &aut);
        replay_with_tick(trace, 4000, REPLAY_TABLE | REPLAY_SUMMARY, &four);
        ASSERT_EQ(aut.r, 0);
        ASSERT_EQ(four.r, 0);
        ASSERT_EQ(aut.stats.tick_source, REPLAY_TICK_DEFAULT);
        ASSERT_U64_EQ(aut.stats.tick_ns, 4000000);
        ASSERT_TRUE(aut.stats.lines > REPLAY_LOOKAHEAD_LINES);
        ASSERT_U64_EQ(aut.stats.lines, four.stats.lines);
        ASSERT_TRUE(strstr(aut.out, "\n  tick            4 ms (default HZ=250: no sched_stat_runtime to measure)\n"));
        ASSERT_TRUE(strstr(four.out, "\n  tick            4 ms ([governor] tick_ms)\n"));
        /* Everything but the summary's tick line is the same. */
        ASSERT_TRUE(strstr(aut.out, "\n  tick "));
        ASSERT_EQ((int) (strstr(aut.out, "\n  tick ") - aut.out), (int) (strstr(four.out, "\n  tick ") - four.out));
        ASSERT_TRUE(strncmp(aut.out, four.out, (size_t) (strstr(aut.out, "\n  tick ") - aut.out)) == 0);
}

/* Too few reports to tell (a short busy spell): the default, and the summary says why. */
TEST(tick_too_few) {
        _cleanup_free_ char *trace = runtime_trace(1000, 10, 0);
        _cleanup_(replayed_done) Replayed aut = {};

        ASSERT_TRUE(trace);
        replay_with_tick(trace, 0, REPLAY_TABLE | REPLAY_SUMMARY, &aut);
        ASSERT_EQ(aut.r, 0);
        ASSERT_EQ(aut.stats.tick_source, REPLAY_TICK_DEFAULT);
        ASSERT_U64_EQ(aut.stats.tick_ns, 4000000);
        ASSERT_TRUE(strstr(aut.out, "\n  tick            4 ms (default HZ=250: 9 sched_stat_runtime, on no tick's grid)\n"));
}

DEFINE_TEST_MAIN

/*
 * A wake-up onto an idle cpu1, recorded 20 µs after the enqueue's clock, which the task's first sched_stat_runtime
 * gives (exec_start: the switch-in from idle did not update the rq clock): the wake-up and the switch-in are applied
 * there (replay_queue_redate_wakeup()), as the kernel's PELT and cpufreq hook saw them. Not for a task that was
 * moved since it slept (its attach, recorded later than the clock), nor when the report points after the wake-up.
 */
#define IDLE_WAKE(migrate, runtime) \
        "       a   400 [001] 0.990000: sched:sched_stat_runtime: comm=a pid=400 runtime=1000000 [ns]\n" \
        "       a   400 [001] 0.990000: sched:sched_switch: prev_comm=a prev_pid=400 prev_prio=120 prev_state=S ==> " \
        "next_comm=swapper/1 next_pid=0 next_prio=120\n" \
        migrate \
        "  swapper/1     0 [001] 1.000020: sched:sched_wakeup: comm=a pid=400 prio=120 target_cpu=001\n" \
        "  swapper/1     0 [001] 1.000030: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 " \
        "prev_state=R ==> next_comm=a next_pid=400 next_prio=120\n" \
        "       a   400 [001] 1.004000: sched:sched_stat_runtime: comm=a pid=400 runtime=" runtime " [ns]\n" \
        "       a   400 [001] 1.005000: sched:sched_switch: prev_comm=a prev_pid=400 prev_prio=120 prev_state=S ==> " \
        "next_comm=swapper/1 next_pid=0 next_prio=120\n"
#define MIGRATE_A "  swapper/0     0 [000] 0.995000: sched:sched_migrate_task: comm=a pid=400 prio=120 orig_cpu=0 " \
                  "dest_cpu=1\n"

TEST(idle_wakeup_at_its_enqueue) {
        _cleanup_(replayed_done) Replayed at = {}, moved = {}, later = {};

        at = replay_text(IDLE_WAKE("", "4000000"), "two-dt.ini", NULL, REPLAY_PRINT_UTIL);
        ASSERT_EQ(at.r, 0);
        ASSERT_U64_EQ(at.stats.redated_wakeups, 1);
        ASSERT_TRUE(strstr(at.out, "t=1000000000 cpu=1 "));
        ASSERT_TRUE(!strstr(at.out, "t=1000020000 cpu=1 "));

        moved = replay_text(IDLE_WAKE(MIGRATE_A, "4000000"), "two-dt.ini", NULL, REPLAY_PRINT_UTIL);
        ASSERT_EQ(moved.r, 0);
        ASSERT_U64_EQ(moved.stats.redated_wakeups, 0);
        ASSERT_TRUE(strstr(moved.out, "t=1000020000 cpu=1 "));

        later = replay_text(IDLE_WAKE("", "3970000"), "two-dt.ini", NULL, REPLAY_PRINT_UTIL);
        ASSERT_EQ(later.r, 0);
        ASSERT_U64_EQ(later.stats.redated_wakeups, 0);
        ASSERT_TRUE(strstr(later.out, "t=1000020000 cpu=1 "));
}
