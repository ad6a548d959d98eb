/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-events.c against the real kernel (root; no skip). In the spirit of libperf's test_mmap_thread
 * (tools/lib/perf/tests/test-evlist.c): a child does a known number of things, the rings must show them.
 * Needs at least 2 CPUs (the child is pinned to CPU 1).
 */

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "events.h"
#include "macro.h"
#include "pingpong.h"
#include "test.h"
#include "time-util.h"

#define N_SLEEPS 200
#define CHILD_COMM "sfd-sleeper"

typedef struct Seen {
        PerfEvents *p;
        pid_t child, self;
        uint64_t time_min, time_max;
        uint64_t newest, drain_newest, last_drain;
        unsigned total, out_of_order, late, self_wakeups, self_switches;
        unsigned sleeps, wakeups_on_cpu1, wakeup_new, migrations_to_cpu0, runtime, runtime_short, exits, bad_comm;
        int fail_with;                    /* handler returns this (if non-zero) on the first event */
} Seen;

static Config test_config(WakeupMode mode) {
        Config c = {
                .drain_interval_usec = 4000,
                .ring_pages = 64,
                .wakeup = mode,
                .adaptive_high_per_sec = 20000,
        };
        return c;
}

static cpu_set_t all_cpus(void) {
        cpu_set_t s;

        CPU_ZERO(&s);
        if (sched_getaffinity(0, sizeof(s), &s) < 0)
                abort();
        return s;
}

static const char *own_comm(void) {
        static char comm[16];

        if (comm[0] == '\0' && prctl(PR_GET_NAME, comm) < 0)
                abort();
        return comm;
}

static bool event_has_pid(const SchedEvent *ev, pid_t pid) {
        if (ev->type == SCHED_EVENT_SWITCH)
                return ev->sw.prev_pid == pid || ev->sw.next_pid == pid;
        return ev->wakeup.pid == pid; /* every other variant starts with comm, pid */
}

static void seen_child_event(Seen *s, const SchedEvent *ev) {
        switch (ev->type) {
        case SCHED_EVENT_SWITCH:
                if (ev->sw.prev_pid == s->child && !ev->sw.prev_runnable)
                        s->sleeps++;
                return;
        case SCHED_EVENT_WAKEUP:
                s->wakeups_on_cpu1 += ev->wakeup.target_cpu == 1;
                return;
        case SCHED_EVENT_WAKEUP_NEW:
                s->wakeup_new++;
                return;
        case SCHED_EVENT_MIGRATE:
                s->migrations_to_cpu0 += ev->migrate.orig_cpu == 1 && ev->migrate.dest_cpu == 0;
                /* Before its prctl(PR_SET_NAME), the child still has our name (a load balance can move it then). */
                s->bad_comm += !streq(ev->migrate.comm, CHILD_COMM) && !streq(ev->migrate.comm, own_comm());
                return;
        case SCHED_EVENT_EXIT:
                s->exits++;
                s->bad_comm += !streq(ev->exit.comm, CHILD_COMM);
                return;
        case SCHED_EVENT_RUNTIME:
                s->runtime += ev->runtime.runtime_ns > 0;
                s->runtime_short += ev->runtime.runtime_ns < 1000000;
                return;
        case SCHED_EVENT_STAT_IOWAIT: /* not on the test machines' kernels (no CONFIG_SCHEDSTATS) */
        case SCHED_EVENT_CPU_FREQUENCY: /* not opened here (PERF_EVENTS_CPU_FREQUENCY) */
                return;
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                break;
        }
}

static int on_event(const SchedEvent *ev, void *userdata) {
        Seen *s = userdata;
        uint64_t drain = perf_events_stats(s->p)->drains;

        if (s->fail_with)
                return s->fail_with;
        s->total++;
        s->time_min = MIN(s->time_min, ev->time_ns);
        s->time_max = MAX(s->time_max, ev->time_ns);
        /*
         * Within one drain the merge guarantees order; across drains an event may come late (a ring read
         * later in the previous drain held newer events than this one's ring had then).
         */
        if (drain != s->last_drain)
                s->drain_newest = 0;
        s->out_of_order += ev->time_ns < s->drain_newest;
        s->late += ev->time_ns < s->newest;
        s->drain_newest = MAX(s->drain_newest, ev->time_ns);
        s->newest = MAX(s->newest, ev->time_ns);
        s->last_drain = drain;
        if (ev->type == SCHED_EVENT_WAKEUP || ev->type == SCHED_EVENT_WAKEUP_NEW)
                s->self_wakeups += ev->wakeup.pid == s->self;
        if (ev->type == SCHED_EVENT_SWITCH)
                s->self_switches += event_has_pid(ev, s->self);
        if (event_has_pid(ev, s->child) && (ev->type != SCHED_EVENT_SWITCH || ev->sw.prev_pid == s->child))
                seen_child_event(s, ev);
        return 0;
}

/*
 * The child: pinned to CPU 1, it blocks N_SLEEPS times in a pipe read (a sleep: prev_state S), each time
 * woken by a peer pinned to CPU 0 that writes every 100 µs; then it runs a little (sched_stat_runtime),
 * moves itself to CPU 0 (sched_migrate_task 1 → 0) and exits. A SCHED_IDLE spinner keeps CPU 1 from ever
 * going idle, so the wake-ups are done on CPU 0 in the peer's context (target_cpu 1).
 *
 * Why the spinner: on the project's VMs (custom 6.18 Firecracker kernel, sched_vcpu_pack=) events raised
 * in CPU 1's idle context are lost to perf: a wake-up there (the hrtimer interrupt, or the remote wake-up
 * the kernel queues to an idle CPU's wakelist, ttwu_queue_cond() in kernel/sched/core.c) is counted but its
 * sample is dropped, and the switch out of idle is not traced at all (ftrace neither). CPU 0 is not
 * affected. Measured with bench/bench-events --quirk; see the report of this module.
 */
/* After its sleeps, the child runs a little (sched_stat_runtime) and moves itself to CPU 0 (sched_migrate_task). */
static void child_after(void) {
        for (volatile unsigned i = 0; i < 2000000; i++)
                ;
        pingpong_pin(0);
}

static const PingPong child_pingpong = {
        .sleeper_cpu = 1, .waker_cpu = 0, .rounds = N_SLEEPS, .period_ns = 100000, .comm = CHILD_COMM,
        .after = child_after,
};

/* Runs the loop until both processes have exited, then drains once more. */
static int run_until_exit(sd_event *e, PerfEvents *p, const pid_t pids[2]) {
        uint64_t deadline = monotonic_ns() + 20 * UINT64_C(1000000000);
        bool done[2] = {};
        int status, r;

        while (!done[0] || !done[1]) {
                for (unsigned i = 0; i < 2; i++) {
                        if (done[i] || waitpid(pids[i], &status, WNOHANG) != pids[i])
                                continue;
                        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                                return -ECHILD;
                        done[i] = true;
                }
                if (monotonic_ns() > deadline)
                        return -ETIMEDOUT;
                r = sd_event_run(e, 10000);
                if (r < 0)
                        return r;
        }
        return perf_events_drain(p);
}

/*
 * The child, its peer and the spinner keeping CPU 1 busy, run under the loop to the end. Returns the
 * child's own count of blocks in *ret_blocked.
 */
static int run_workload(sd_event *e, PerfEvents *p, Seen *s, unsigned *ret_blocked) {
        pid_t pids[2], spinner;
        int r, result;

        spinner = pingpong_fork_spinner(1);
        pingpong_fork(&child_pingpong, pids, &result);
        s->child = pids[0];
        if (spinner < 0 || pids[0] < 0 || pids[1] < 0)
                return -ECHILD;
        r = run_until_exit(e, p, pids);
        (void) kill(spinner, SIGKILL);
        (void) waitpid(spinner, NULL, 0);
        if (r >= 0 && read(result, ret_blocked, sizeof(*ret_blocked)) != sizeof(*ret_blocked))
                r = -EIO;
        close(result);
        return r;
}

static void check_sleeper(PerfEventsFlags flags, WakeupMode mode) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        sd_event *e = NULL;
        Seen s = { .self = getpid(), .time_min = UINT64_MAX };
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(mode);
        uint64_t before, after;
        unsigned blocked = 0;

        ASSERT_TRUE(CPU_COUNT(&cpus) >= 2 && CPU_ISSET(1, &cpus));
        ASSERT_OK(sd_event_new(&e));
        before = monotonic_ns();
        ASSERT_OK(perf_events_new_flags(e, &cpus, &cfg, flags, on_event, &s, &p));
        s.p = p;
        ASSERT_EQ(perf_events_stats(p)->cpus, CPU_COUNT(&cpus));
        ASSERT_EQ(perf_events_stats(p)->immediate, mode != WAKEUP_MODE_WATERMARK);

        ASSERT_OK(run_workload(e, p, &s, &blocked));
        after = monotonic_ns();

        fprintf(stderr, "# child blocked %u times; ", blocked);
        fprintf(stderr, "%u events, %u child sleeps, %u wakeups on CPU 1, %u late, %u own switches, drains %"
                PRIu64 ", wakeups %" PRIu64 "\n", s.total, s.sleeps, s.wakeups_on_cpu1, s.late, s.self_switches,
                perf_events_stats(p)->drains, perf_events_stats(p)->wakeups);
        /*
         * Every block of the child, by its own count (the last switch, exiting, comes on top), and it
         * blocked on (nearly) every read: the peer waits for an ack before it writes again.
         */
        ASSERT_TRUE(s.sleeps >= blocked);
        ASSERT_TRUE(blocked >= N_SLEEPS * 9 / 10);
        ASSERT_TRUE(s.wakeups_on_cpu1 >= N_SLEEPS * 9 / 10);
        ASSERT_EQ(s.wakeup_new, 1);
        ASSERT_EQ(s.exits, 1);
        ASSERT_TRUE(s.migrations_to_cpu0 >= 1);
        ASSERT_EQ(s.bad_comm, 0);
        ASSERT_TRUE(before <= s.time_min && s.time_max <= after); /* CLOCK_MONOTONIC */
        ASSERT_EQ(s.out_of_order, 0);
        ASSERT_EQ(s.self_wakeups, 0); /* the filter: our own wake-ups would wake us again */
        ASSERT_U64_EQ(perf_events_stats(p)->lost, 0);
        ASSERT_U64_EQ(perf_events_stats(p)->malformed, 0);
        ASSERT_U64_EQ(perf_events_stats(p)->samples, s.total);
        /* Without PERF_EVENTS_STAT_RUNTIME the only sched_stat_runtime samples are the busy detector's, on in
         * every mode: 1 ms or more of running each. */
        if (flags & PERF_EVENTS_STAT_RUNTIME)
                ASSERT_TRUE(s.runtime >= 1);
        else
                ASSERT_EQ(s.runtime_short, 0);
        p = perf_events_free(p);
        sd_event_unref(e);
}

/* ---- the busy detector's threshold follows a short tick (tick_ms = auto on a CONFIG_HZ=1000 kernel) ---- */

#define BURST_NS 700000 /* running time per burst: under 1 ms, over half a 1 ms tick */

/*
 * A child on CPU 1 running BURST_NS at a time, then sleeping 3 ms: its report at each switch-out (update_curr()
 * at the dequeue) says it ran about BURST_NS, unless a tick or another task split the burst. Timed on
 * CLOCK_MONOTONIC: reading its own CPU clock would call update_curr() (task_sched_runtime()), a report each.
 */
static pid_t fork_bursts(void) {
        pid_t pid = fork();

        if (pid != 0)
                return pid;
        pingpong_pin(1);
        for (unsigned i = 0; i < 100; i++) {
                uint64_t t0 = monotonic_ns();

                while (monotonic_ns() - t0 < BURST_NS)
                        ;
                (void) nanosleep(&(struct timespec) { .tv_nsec = 3000000 }, NULL);
        }
        _exit(0);
}

typedef struct Bursts {
        pid_t child;
        unsigned reports, short_reports; /* its sched_stat_runtime samples; those under 1 ms */
} Bursts;

static int on_burst_event(const SchedEvent *ev, void *userdata) {
        Bursts *b = userdata;

        if (ev->type == SCHED_EVENT_RUNTIME && ev->runtime.pid == b->child) {
                b->reports++;
                b->short_reports += ev->runtime.runtime_ns < 1000000;
        }
        return 0;
}

/* The bursts under a detector for a tick of @tick_usec, the loop run until the child is gone. */
static int run_bursts(uint64_t tick_usec, Bursts *b) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(WAKEUP_MODE_IMMEDIATE);
        uint64_t deadline = monotonic_ns() + 10 * UINT64_C(1000000000);
        int status, r;

        cfg.tick_usec = tick_usec;
        r = sd_event_new(&e);
        if (r < 0)
                return r;
        r = perf_events_new(e, &cpus, &cfg, on_burst_event, b, &p);
        if (r < 0)
                return r;
        b->child = fork_bursts();
        if (b->child < 0)
                return -ECHILD;
        while (waitpid(b->child, &status, WNOHANG) != b->child) {
                if (monotonic_ns() > deadline) {
                        (void) kill(b->child, SIGKILL);
                        (void) waitpid(b->child, NULL, 0);
                        return -ETIMEDOUT;
                }
                r = sd_event_run(e, 10000);
                if (r < 0)
                        return r;
        }
        return perf_events_drain(p);
}

/*
 * With a 1 ms tick (HZ=1000) a running task's report at each tick is just under 1 ms (the tick less the IRQ
 * time): the detector takes half a tick, or the model would take a hog for silent after 3 ticks. The bursts'
 * ~0.7 ms reports pass it then, and never with the 4 ms tick's 1 ms.
 */
TEST(detector_half_a_short_tick) {
        Bursts one = {}, four = {};

        ASSERT_OK(run_bursts(1000, &one));
        ASSERT_OK(run_bursts(4000, &four));
        fprintf(stderr, "# bursts of 0.7 ms: tick 1 ms: %u reports, %u under 1 ms; tick 4 ms: %u, %u\n", one.reports,
                one.short_reports, four.reports, four.short_reports);
        ASSERT_TRUE(one.short_reports >= 10);
        ASSERT_EQ(four.short_reports, 0);
}

TEST(sleeper_immediate) {
        check_sleeper(0, WAKEUP_MODE_IMMEDIATE);
}

TEST(sleeper_watermark_with_runtime) {
        check_sleeper(PERF_EVENTS_STAT_RUNTIME, WAKEUP_MODE_WATERMARK);
}

TEST(sleeper_adaptive) {
        check_sleeper(0, WAKEUP_MODE_ADAPTIVE);
}

/*
 * Two processes taking turns on CPU 1 with sched_yield(): ~400k sched_switch/s here, far above the
 * threshold whatever else runs on the machine.
 */
static void fork_yielders(pid_t ret[2]) {
        for (unsigned i = 0; i < 2; i++) {
                ret[i] = fork();
                if (ret[i] != 0)
                        continue;
                pingpong_pin(1);
                for (;;)
                        (void) sched_yield();
        }
}

/* Runs the loop until the adaptive state is @immediate, at most 10 s. */
static bool await_state(sd_event *e, PerfEvents *p, bool immediate) {
        uint64_t deadline = monotonic_ns() + 10 * UINT64_C(1000000000);

        while (perf_events_stats(p)->immediate != immediate) {
                if (monotonic_ns() > deadline || sd_event_run(e, 10000) < 0)
                        return false;
        }
        return true;
}

static int count_event(const SchedEvent *ev, void *userdata) {
        (*(uint64_t *) userdata)++;
        return 0;
}

TEST(adaptive_switches_under_load) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        struct sched_param fifo = { .sched_priority = 1 }, other = { .sched_priority = 0 };
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(WAKEUP_MODE_ADAPTIVE);
        uint64_t n = 0;
        pid_t load[2];
        bool high, low;
        int fifo_r;

        /* Margins both ways: the machine is shared (a few thousand events/s when "idle"). */
        cfg.adaptive_high_per_sec = 40000;
        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, count_event, &n, &p));
        ASSERT_TRUE(perf_events_stats(p)->immediate);

        fork_yielders(load);
        /* As the daemon does by default ([daemon] realtime_priority = 1): a SCHED_OTHER reader is starved by
         * the yielders and the rings overflow. After the fork, so that the yielders stay SCHED_OTHER. */
        fifo_r = sched_setscheduler(0, SCHED_FIFO, &fifo);
        high = await_state(e, p, false);
        fprintf(stderr, "# under load: %" PRIu64 " events/s, immediate=%d\n", perf_events_stats(p)->rate_per_sec,
                perf_events_stats(p)->immediate);
        for (unsigned i = 0; i < 2; i++) {
                (void) kill(load[i], SIGKILL);
                (void) waitpid(load[i], NULL, 0);
        }
        (void) sched_setscheduler(0, SCHED_OTHER, &other);
        ASSERT_OK(fifo_r);
        ASSERT_TRUE(high);
        ASSERT_TRUE(perf_events_stats(p)->rate_per_sec > cfg.adaptive_high_per_sec);

        low = await_state(e, p, true);
        fprintf(stderr, "# idle again: %" PRIu64 " events/s, immediate=%d\n", perf_events_stats(p)->rate_per_sec,
                perf_events_stats(p)->immediate);
        ASSERT_TRUE(low);
        ASSERT_TRUE(perf_events_stats(p)->rate_per_sec < cfg.adaptive_high_per_sec / 4);
        ASSERT_EQ(perf_events_stats(p)->mode_switches, 2);
        ASSERT_U64_EQ(perf_events_stats(p)->lost, 0);
        ASSERT_TRUE(n > 0);
}

TEST(handler_error_ends_the_loop) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        sd_event *e = NULL;
        Seen s = { .self = getpid(), .fail_with = -ECANCELED };
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(WAKEUP_MODE_IMMEDIATE);
        pid_t pids[2];
        int result;

        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, on_event, &s, &p));
        s.p = p;
        pingpong_fork(&child_pingpong, pids, &result);
        close(result);
        ASSERT_TRUE(pids[0] > 0 && pids[1] > 0);
        ASSERT_ERROR(sd_event_loop(e), ECANCELED);
        (void) waitpid(pids[0], NULL, 0);
        (void) waitpid(pids[1], NULL, 0);
        ASSERT_ERROR(perf_events_drain(p), ECANCELED); /* still events from the child's exit */
        p = perf_events_free(p);
        sd_event_unref(e);
}

TEST(missing_cpus_are_skipped) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        sd_event *e = NULL;
        cpu_set_t cpus = all_cpus(), none;
        Config cfg = test_config(WAKEUP_MODE_WATERMARK);
        uint64_t n = 0;

        ASSERT_OK(sd_event_new(&e));
        CPU_SET(1000, &cpus); /* an emulated sysfs may list CPUs this kernel does not have */
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, count_event, &n, &p));
        ASSERT_EQ(perf_events_stats(p)->cpus, CPU_COUNT(&cpus) - 1);
        ASSERT_EQ(perf_events_stats(p)->cpus_skipped, 1);
        p = perf_events_free(p);

        CPU_ZERO(&none);
        CPU_SET(1000, &none);
        CPU_SET(1001, &none);
        ASSERT_TRUE(perf_events_new(e, &none, &cfg, count_event, &n, &p) < 0);
        ASSERT_TRUE(p == NULL);
        cfg.ring_pages = 3;
        ASSERT_ERROR(perf_events_new(e, &cpus, &cfg, count_event, &n, &p), EINVAL);
        sd_event_unref(e);
}

static unsigned open_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        unsigned n = 0;

        if (!d)
                abort();
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

/*
 * Observe mode's power:cpu_frequency: opened on every CPU into the same rings with the flag (this kernel has
 * the tracepoint even without a cpufreq driver: its fd opens, it never fires here), not without it; a
 * reconfigure (new rings) keeps it.
 */
TEST(cpu_frequency_opened_with_the_flag) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        sd_event *e = NULL;
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(WAKEUP_MODE_WATERMARK);
        uint64_t n = 0;

        unsigned fds_without;

        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, count_event, &n, &p));
        ASSERT_TRUE(!perf_events_stats(p)->cpu_frequency);
        fds_without = open_fds();
        p = perf_events_free(p);
        ASSERT_OK(perf_events_new_flags(e, &cpus, &cfg, PERF_EVENTS_CPU_FREQUENCY, count_event, &n, &p));
        ASSERT_TRUE(perf_events_stats(p)->cpu_frequency);
        ASSERT_EQ(open_fds(), fds_without + (unsigned) CPU_COUNT(&cpus)); /* one more per CPU */
        ASSERT_EQ(perf_events_stats(p)->cpus, CPU_COUNT(&cpus));
        cfg.ring_pages *= 2;
        ASSERT_OK(perf_events_reconfigure(p, &cfg));
        ASSERT_TRUE(perf_events_stats(p)->cpu_frequency);
        ASSERT_OK(perf_events_drain(p));
        p = perf_events_free(p);
        sd_event_unref(e);
}

TEST(reconfigure) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        sd_event *e = NULL;
        Seen s = { .self = getpid(), .time_min = UINT64_MAX };
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(WAKEUP_MODE_ADAPTIVE);
        unsigned blocked = 0;

        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, on_event, &s, &p));
        s.p = p;

        /* same attributes: applied in place */
        cfg.wakeup = WAKEUP_MODE_IMMEDIATE;
        cfg.drain_interval_usec = 2000;
        ASSERT_OK(perf_events_reconfigure(p, &cfg));
        ASSERT_TRUE(perf_events_stats(p)->immediate);

        /* watermark and a bigger ring: reopened */
        cfg.wakeup = WAKEUP_MODE_WATERMARK;
        cfg.ring_pages = 128;
        ASSERT_OK(perf_events_reconfigure(p, &cfg));
        ASSERT_TRUE(!perf_events_stats(p)->immediate);
        ASSERT_EQ(perf_events_stats(p)->mode, WAKEUP_MODE_WATERMARK);

        ASSERT_OK(run_workload(e, p, &s, &blocked));
        ASSERT_TRUE(s.sleeps >= blocked);
        ASSERT_EQ(s.self_wakeups, 0);

        cfg.ring_pages = 0;
        ASSERT_ERROR(perf_events_reconfigure(p, &cfg), EINVAL);
        p = perf_events_free(p);
        sd_event_unref(e);
}

DEFINE_TEST_MAIN
