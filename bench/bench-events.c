/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-events: what the live event source costs and how fast it delivers (root).
 *
 *   bench-events [--mode immediate|watermark|adaptive] [--seconds N] [--fifo] [--runtime] [-- LOAD...]
 *   bench-events --quirk
 *
 * Runs perf-events.c on all CPUs for N seconds (default 5) while LOAD (if given) runs in the background, and
 * prints one line: events/s, sample-to-delivery latency of sched_wakeup* events (clock_gettime at delivery
 * minus the event's CLOCK_MONOTONIC time) p50/p99/max, lost events, drains, ring wake-ups, late events and
 * this process's own CPU use. --fifo runs the reader SCHED_FIFO 10 (as the daemon's unit does).
 *
 * --quirk measures what perf misses on a CPU's idle context (see tests/unit/test-perf-events.c): a task on
 * CPU 1 blocks 1000 times in a pipe read, woken from CPU 0; counts the sleeps, wake-ups and switch-ins seen
 * against the task's own voluntary_ctxt_switches, with CPU 1 left idle and kept busy.
 */

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "macro.h"
#include "pingpong.h"

#define QUIRK_ROUNDS 1000

typedef struct Bench {
        PerfEvents *p;
        uint64_t *lat_ns;
        size_t n_lat, lat_allocated;
        uint64_t events, late, newest;
        pid_t watch;                      /* --quirk: the task whose events are counted */
        unsigned sleeps, wakeups, switch_ins;
} Bench;

static uint64_t now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

static uint64_t cpu_time_ns(void) {
        struct rusage ru;

        (void) getrusage(RUSAGE_SELF, &ru);
        return ((uint64_t) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)) * UINT64_C(1000000000) +
               ((uint64_t) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec)) * 1000;
}

static int record_latency(Bench *b, uint64_t ns) {
        if (b->n_lat == b->lat_allocated) {
                size_t want = MAX(b->lat_allocated * 2, (size_t) 65536);
                uint64_t *l = reallocarray(b->lat_ns, want, sizeof(uint64_t));

                if (!l)
                        return -ENOMEM;
                b->lat_ns = l;
                b->lat_allocated = want;
        }
        b->lat_ns[b->n_lat++] = ns;
        return 0;
}

static void count_watched(Bench *b, const SchedEvent *ev) {
        if (ev->type == SCHED_EVENT_SWITCH) {
                b->sleeps += ev->sw.prev_pid == b->watch && !ev->sw.prev_runnable;
                b->switch_ins += ev->sw.next_pid == b->watch;
        } else if (ev->type == SCHED_EVENT_WAKEUP)
                b->wakeups += ev->wakeup.pid == b->watch;
}

static int on_event(const SchedEvent *ev, void *userdata) {
        Bench *b = userdata;
        uint64_t now = now_ns();

        b->events++;
        b->late += ev->time_ns < b->newest;
        b->newest = MAX(b->newest, ev->time_ns);
        if (b->watch > 0)
                count_watched(b, ev);
        if (ev->type == SCHED_EVENT_WAKEUP || ev->type == SCHED_EVENT_WAKEUP_NEW)
                return record_latency(b, now > ev->time_ns ? now - ev->time_ns : 0);
        return 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

static double quantile_usec(const Bench *b, double q) {
        if (b->n_lat == 0)
                return 0;
        return (double) b->lat_ns[MIN((size_t) (q * (double) b->n_lat), b->n_lat - 1)] / 1000.0;
}

static pid_t start_load(char **argv) {
        pid_t pid = fork();

        if (pid != 0)
                return pid;
        (void) setpgid(0, 0);
        (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
        execvp(argv[0], argv);
        _exit(127);
}

/* Lets the load finish on its own (its own --timeout, so its report is complete) for up to 5 s. */
static void stop_load(pid_t pid) {
        uint64_t deadline = now_ns() + 5 * UINT64_C(1000000000);

        if (pid <= 0)
                return;
        while (waitpid(pid, NULL, WNOHANG) == 0) {
                if (now_ns() > deadline) {
                        (void) kill(-pid, SIGTERM);
                        (void) waitpid(pid, NULL, 0);
                        return;
                }
                (void) usleep(10000);
        }
}

static int run_loop(sd_event *e, double seconds) {
        uint64_t end = now_ns() + (uint64_t) (seconds * 1e9);
        int r;

        while (now_ns() < end) {
                r = sd_event_run(e, 100000);
                if (r < 0)
                        return r;
        }
        return 0;
}

static Config bench_config(WakeupMode mode) {
        return (Config) {
                .drain_interval_usec = 4000,
                .ring_pages = 64,
                .wakeup = mode,
                .adaptive_high_per_sec = 20000,
        };
}

static int bench_run(const cpu_set_t *cpus, WakeupMode mode, double seconds, bool fifo, PerfEventsFlags flags,
                     char **load) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        Config cfg = bench_config(mode);
        Bench b = {};
        sd_event *e = NULL;
        uint64_t t0, c0, t1, c1;
        pid_t load_pid = -1;
        int r;

        if (sd_event_new(&e) < 0)
                return -ENOMEM;
        r = perf_events_new_flags(e, cpus, &cfg, flags, on_event, &b, &p);
        if (r < 0) {
                fprintf(stderr, "perf_events_new: %s\n", strerror(-r));
                return r;
        }
        b.p = p;
        if (load)
                load_pid = start_load(load);
        /* SCHED_RESET_ON_FORK: the load must not inherit it */
        if (fifo && sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &(struct sched_param) { 10 }) < 0)
                fprintf(stderr, "SCHED_FIFO: %m\n");
        (void) run_loop(e, 0.5); /* settle: the load starts up */
        (void) perf_events_drain(p);
        b.n_lat = b.events = b.late = 0;

        t0 = now_ns(), c0 = cpu_time_ns();
        r = run_loop(e, seconds);
        t1 = now_ns(), c1 = cpu_time_ns();
        stop_load(load_pid);
        if (r < 0)
                fprintf(stderr, "event loop: %s\n", strerror(-r));

        qsort(b.lat_ns, b.n_lat, sizeof(uint64_t), cmp_u64);
        printf("mode=%s fifo=%d load=%s seconds=%.2f events=%" PRIu64 " events_per_s=%.0f wakeup_samples=%zu "
               "p50_us=%.1f p99_us=%.1f max_us=%.1f lost=%" PRIu64 " drains=%" PRIu64 " ring_wakeups=%" PRIu64
               " mode_switches=%" PRIu64 " late=%" PRIu64 " reader_cpu_pct=%.1f\n",
               wakeup_mode_to_string(mode), fifo, load ? load[0] : "none", (double) (t1 - t0) / 1e9, b.events,
               (double) b.events * 1e9 / (double) (t1 - t0), b.n_lat, quantile_usec(&b, 0.5),
               quantile_usec(&b, 0.99), quantile_usec(&b, 1.0), perf_events_stats(p)->lost,
               perf_events_stats(p)->drains, perf_events_stats(p)->wakeups, perf_events_stats(p)->mode_switches,
               b.late, (double) (c1 - c0) * 100.0 / (double) (t1 - t0));
        free(b.lat_ns);
        p = perf_events_free(p);
        sd_event_unref(e);
        return 0;
}

/* A task on CPU 1 blocking QUIRK_ROUNDS times in a pipe read, woken by a peer on CPU 0; it reports its own
 * count of blocks during the rounds. */
static const PingPong quirk_pingpong = {
        .sleeper_cpu = 1, .waker_cpu = 0, .rounds = QUIRK_ROUNDS, .period_ns = 200000, .count_rounds_only = true,
};

static int quirk_run(const cpu_set_t *cpus, bool busy) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        Config cfg = bench_config(WAKEUP_MODE_WATERMARK);
        Bench b = {};
        sd_event *e = NULL;
        pid_t pair[2], spinner = -1;
        unsigned blocked = 0;
        int r, result, status;

        if (!CPU_ISSET(0, cpus) || !CPU_ISSET(1, cpus) || sd_event_new(&e) < 0)
                return -ENODEV;
        pingpong_pin(0); /* keep the reader off CPU 1 */
        r = perf_events_new(e, cpus, &cfg, on_event, &b, &p);
        if (r < 0)
                return r;
        if (busy)
                spinner = pingpong_fork_spinner(1);
        pingpong_fork(&quirk_pingpong, pair, &result);
        b.watch = pair[0];
        while (waitpid(pair[0], &status, WNOHANG) == 0)
                (void) sd_event_run(e, 10000);
        (void) waitpid(pair[1], NULL, 0);
        if (spinner > 0) {
                (void) kill(spinner, SIGKILL);
                (void) waitpid(spinner, NULL, 0);
        }
        (void) perf_events_drain(p);
        if (read(result, &blocked, sizeof(blocked)) != sizeof(blocked))
                blocked = 0;
        close(result);
        printf("cpu1=%s blocked=%u sleeps_seen=%u wakeups_seen=%u switch_ins_seen=%u\n", busy ? "busy" : "idle",
               blocked, b.sleeps, b.wakeups, b.switch_ins);
        free(b.lat_ns);
        p = perf_events_free(p);
        sd_event_unref(e);
        return 0;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "mode", required_argument, NULL, 'm' },
                { "seconds", required_argument, NULL, 's' },
                { "fifo", no_argument, NULL, 'f' },
                { "runtime", no_argument, NULL, 'r' },
                { "quirk", no_argument, NULL, 'q' },
                {}
        };
        WakeupMode mode = WAKEUP_MODE_IMMEDIATE;
        PerfEventsFlags flags = 0;
        double seconds = 5;
        bool fifo = false, quirk = false;
        cpu_set_t cpus;
        int c;

        while ((c = getopt_long(argc, argv, "+m:s:frq", options, NULL)) >= 0)
                switch (c) {
                case 'm':
                        mode = wakeup_mode_from_string(optarg);
                        if (mode < 0) {
                                fprintf(stderr, "bad --mode %s\n", optarg);
                                return 2;
                        }
                        break;
                case 's':
                        seconds = atof(optarg);
                        break;
                case 'f':
                        fifo = true;
                        break;
                case 'r':
                        flags |= PERF_EVENTS_STAT_RUNTIME;
                        break;
                case 'q':
                        quirk = true;
                        break;
                default:
                        return 2;
                }
        if (sched_getaffinity(0, sizeof(cpus), &cpus) < 0)
                return 1;
        if (quirk)
                return quirk_run(&cpus, false) < 0 || quirk_run(&cpus, true) < 0;
        return bench_run(&cpus, mode, seconds, fifo, flags, optind < argc ? argv + optind : NULL) < 0;
}
