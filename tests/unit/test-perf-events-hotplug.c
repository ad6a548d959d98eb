/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_events_cpu_offline()/perf_events_cpu_online() against the real kernel (root; no skip; at least 2
 * CPUs). No real hotplug (that would take a CPU from the machine): CPU 1 is taken out of the PerfEvents
 * object and put back, 50 times in each wake-up state (immediate, watermark, lazy with a quiet set), while a
 * child pinned to CPU 1 sleeps 200 µs in a loop (each sleep is a sched_switch recorded on CPU 1 in the
 * child's context; events raised in CPU 1's idle context may be lost on these VMs, see test-perf-events.c).
 * Each cycle checks: while offline, no event from CPU 1 arrives (in ~20 ms the child switches ~100 times)
 * and the process holds fewer fds; once online again, events from CPU 1 arrive, the process holds exactly the
 * fds it held before (nothing leaked, the lazy twins re-opened), and the wake-up state and drain timer are as
 * before. Also: a CPU the object was not created with can be added, a CPU perf refuses leaves nothing
 * behind, and a reconfigure while a CPU is offline leaves it closed.
 */

#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "macro.h"
#include "test.h"

#define CYCLES 50
#define OFFLINE_WATCH_MS 20
#define ONLINE_TIMEOUT_MS 3000
#define DRAIN_EVERY_MS 4

typedef struct Seen {
        unsigned cpu1, other;
} Seen;

static uint64_t now_ms(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static Config test_config(WakeupMode mode, unsigned ring_pages) {
        Config c = {
                .drain_interval_usec = 4000,
                .ring_pages = ring_pages,
                .wakeup = mode,
                .adaptive_high_per_sec = 1000000, /* adaptive stays immediate */
        };
        return c;
}

static cpu_set_t cpus_upto(int n) {
        cpu_set_t s;

        CPU_ZERO(&s);
        for (int i = 0; i < n; i++)
                CPU_SET(i, &s);
        return s;
}

static unsigned open_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        unsigned n = 0;

        if (!d)
                return 0;
        while (readdir(d))
                n++;
        closedir(d);
        return n; /* ".", "..", and the DIR's own fd included: the same offset every time */
}

static int on_event(const SchedEvent *ev, void *userdata) {
        Seen *s = userdata;

        if (ev->cpu == 1)
                s->cpu1++;
        else
                s->other++;
        return 0;
}

/* Pinned to CPU 1, sleeping 200 µs at a time until killed. */
static pid_t fork_sleeper(void) {
        pid_t pid = fork();
        cpu_set_t one;

        if (pid != 0)
                return pid;
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        CPU_ZERO(&one);
        CPU_SET(1, &one);
        if (sched_setaffinity(0, sizeof(one), &one) < 0)
                _exit(2);
        for (;;)
                (void) nanosleep(&(struct timespec) { .tv_nsec = 200000 }, NULL);
}

/*
 * A SCHED_IDLE spinner on CPU 1: the CPU never idles, so the sleeper's timer wake-ups are raised in a task's
 * context, never in the idle context whose samples these VMs lose (test-perf-events.c, fork_spinner()).
 */
static pid_t fork_spinner(void) {
        pid_t pid = fork();
        cpu_set_t one;

        if (pid != 0)
                return pid;
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        CPU_ZERO(&one);
        CPU_SET(1, &one);
        if (sched_setaffinity(0, sizeof(one), &one) < 0 ||
            sched_setscheduler(0, SCHED_IDLE, &(struct sched_param) {}) < 0)
                _exit(2);
        for (;;)
                ;
}

static void stop_child(pid_t pid) {
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

/*
 * Runs the loop for @ms, draining every DRAIN_EVERY_MS as the manager's tick would (in immediate mode
 * sched_switch waits for the watermark). Not in a tight loop: every return to the loop is a switch of ours
 * on CPU 0, recorded too. Returns a negative errno on failure.
 */
static int run_for(sd_event *e, PerfEvents *p, unsigned ms) {
        uint64_t end = now_ms() + ms, next_drain = now_ms() + DRAIN_EVERY_MS;
        int r;

        for (uint64_t now = now_ms(); now < end; now = now_ms()) {
                r = sd_event_run(e, (MIN(end, next_drain) - now) * 1000);
                if (r < 0)
                        return r;
                if (now_ms() < next_drain)
                        continue;
                r = perf_events_drain(p);
                if (r < 0)
                        return r;
                next_drain = now_ms() + DRAIN_EVERY_MS;
        }
        return perf_events_drain(p);
}

/* Runs until CPU 1 delivered something, at most ONLINE_TIMEOUT_MS. */
static bool await_cpu1(sd_event *e, PerfEvents *p, Seen *s) {
        uint64_t end = now_ms() + ONLINE_TIMEOUT_MS;

        while (s->cpu1 == 0) {
                if (now_ms() > end || run_for(e, p, DRAIN_EVERY_MS) < 0)
                        return false;
        }
        return true;
}

static bool timer_enabled(PerfEvents *p) {
        int enabled = SD_EVENT_OFF;

        (void) sd_event_source_get_enabled(perf_events_drain_timer(p), &enabled);
        return enabled != SD_EVENT_OFF;
}

static void cycle_cpu1(WakeupMode mode, bool lazy) {
        PerfEvents *p = NULL;
        sd_event *e = NULL;
        Seen s = {};
        cpu_set_t cpus = cpus_upto(2);
        Config cfg = test_config(mode, 64);
        unsigned fds_online, fds_offline = 0;
        bool immediate, is_lazy, timer;
        pid_t child, spinner;

        ASSERT_TRUE(sysconf(_SC_NPROCESSORS_ONLN) >= 2);
        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, on_event, &s, &p));
        child = fork_sleeper();
        spinner = fork_spinner();
        ASSERT_TRUE(child > 0 && spinner > 0);
        if (lazy) {
                int32_t quiet = child;

                ASSERT_OK(perf_events_set_quiet(p, &quiet, 1));
                ASSERT_TRUE(perf_events_stats(p)->lazy);
        }
        immediate = perf_events_stats(p)->immediate;
        is_lazy = perf_events_stats(p)->lazy;
        timer = timer_enabled(p);
        ASSERT_EQ(timer, mode == WAKEUP_MODE_WATERMARK);
        ASSERT_TRUE(await_cpu1(e, p, &s));
        fds_online = open_fds();

        for (unsigned i = 0; i < CYCLES; i++) {
                uint64_t lost = perf_events_stats(p)->lost;

                ASSERT_OK(perf_events_cpu_offline(p, 1));
                /* The closed ring's counters stay in the totals (the shared VM's other tests load it: rings
                 * do overflow here now and then, so no "nothing lost"). */
                ASSERT_TRUE(perf_events_stats(p)->lost >= lost);
                ASSERT_OK(perf_events_cpu_offline(p, 1)); /* again: nothing to do */
                ASSERT_EQ(perf_events_ring_fd(p, 1), -ENOENT);
                ASSERT_TRUE(perf_events_ring_fd(p, 0) >= 0);
                ASSERT_EQ(perf_events_stats(p)->cpus, 1);
                ASSERT_EQ(perf_events_stats(p)->cpus_skipped, 0);
                s = (Seen) {};
                ASSERT_OK(run_for(e, p, OFFLINE_WATCH_MS));
                ASSERT_EQ(s.cpu1, 0);
                if (i == 0)
                        fds_offline = open_fds();
                ASSERT_EQ(open_fds(), fds_offline);
                ASSERT_TRUE(fds_offline < fds_online);

                ASSERT_OK(perf_events_cpu_online(p, 1));
                ASSERT_OK(perf_events_cpu_online(p, 1)); /* again: nothing to do */
                ASSERT_TRUE(perf_events_ring_fd(p, 1) >= 0);
                ASSERT_EQ(perf_events_stats(p)->cpus, 2);
                ASSERT_EQ(open_fds(), fds_online);
                ASSERT_EQ(perf_events_stats(p)->immediate, immediate);
                ASSERT_EQ(perf_events_stats(p)->lazy, is_lazy);
                ASSERT_EQ(timer_enabled(p), timer);
                s = (Seen) {};
                ASSERT_TRUE(await_cpu1(e, p, &s));
        }
        fprintf(stderr, "# %u cycles: %u fds online, %u with CPU 1 closed\n", CYCLES, fds_online, fds_offline);
        ASSERT_U64_EQ(perf_events_stats(p)->malformed, 0);
        stop_child(child);
        stop_child(spinner);
        p = perf_events_free(p);
        sd_event_unref(e);
}

TEST(cycle_immediate) {
        cycle_cpu1(WAKEUP_MODE_IMMEDIATE, false);
}

TEST(cycle_watermark) {
        cycle_cpu1(WAKEUP_MODE_WATERMARK, false);
}

TEST(cycle_adaptive_lazy) {
        cycle_cpu1(WAKEUP_MODE_ADAPTIVE, true);
}

/* Created with CPU 0 only: CPU 1 is added by perf_events_cpu_online(); a CPU perf refuses leaves nothing. */
TEST(add_a_cpu_and_refused_cpu) {
        PerfEvents *p = NULL;
        sd_event *e = NULL;
        Seen s = {};
        cpu_set_t cpus = cpus_upto(1);
        Config cfg = test_config(WAKEUP_MODE_IMMEDIATE, 64);
        unsigned fds;
        pid_t child, spinner;

        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, on_event, &s, &p));
        child = fork_sleeper();
        spinner = fork_spinner();
        ASSERT_TRUE(child > 0 && spinner > 0);
        ASSERT_OK(run_for(e, p, OFFLINE_WATCH_MS));
        ASSERT_EQ(s.cpu1, 0);

        /* No such CPU in this kernel (>= nr_cpu_ids: EINVAL; offline: ENODEV): an error, nothing left open. */
        fds = open_fds();
        ASSERT_TRUE(perf_events_cpu_online(p, 1000) < 0);
        ASSERT_EQ(open_fds(), fds);
        ASSERT_EQ(perf_events_stats(p)->cpus, 1);
        ASSERT_ERROR(perf_events_cpu_online(p, -1), EINVAL);
        ASSERT_ERROR(perf_events_cpu_offline(p, CPU_SETSIZE), EINVAL);

        ASSERT_OK(perf_events_cpu_online(p, 1));
        ASSERT_EQ(perf_events_stats(p)->cpus, 2);
        ASSERT_TRUE(await_cpu1(e, p, &s));
        stop_child(child);
        stop_child(spinner);
        p = perf_events_free(p);
        sd_event_unref(e);
}

/* A new ring size while CPU 1 is offline: the new generation leaves it out; online opens it at that size. */
TEST(reconfigure_while_offline) {
        PerfEvents *p = NULL;
        sd_event *e = NULL;
        Seen s = {};
        cpu_set_t cpus = cpus_upto(2);
        Config cfg = test_config(WAKEUP_MODE_IMMEDIATE, 64);
        pid_t child, spinner;

        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, on_event, &s, &p));
        child = fork_sleeper();
        spinner = fork_spinner();
        ASSERT_TRUE(child > 0 && spinner > 0);
        ASSERT_OK(perf_events_cpu_offline(p, 1));
        cfg.ring_pages = 128;
        ASSERT_OK(perf_events_reconfigure(p, &cfg));
        ASSERT_EQ(perf_events_stats(p)->cpus, 1);
        ASSERT_EQ(perf_events_stats(p)->cpus_skipped, 0);
        ASSERT_EQ(perf_events_ring_fd(p, 1), -ENOENT);
        s = (Seen) {};
        ASSERT_OK(run_for(e, p, OFFLINE_WATCH_MS));
        ASSERT_EQ(s.cpu1, 0);
        ASSERT_OK(perf_events_cpu_online(p, 1));
        ASSERT_TRUE(await_cpu1(e, p, &s));
        stop_child(child);
        stop_child(spinner);
        p = perf_events_free(p);
        sd_event_unref(e);
}

DEFINE_TEST_MAIN
