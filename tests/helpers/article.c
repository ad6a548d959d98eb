/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * article: the remote-cpufreq-callback case with real tasks (the 4.14 "remote callbacks" article): a light
 * periodic task runs on CPU B, a heavy task builds a high util/util_est running on CPU B, sleeps on CPU A
 * until B's policy has fallen back to a low frequency, and is then woken onto CPU B by a waker pinned to CPU A.
 *
 *   article [--waker-cpu A] [--cpu B] [--light-busy-ms 1] [--light-period-ms 6] [--build-ms 300]
 *           [--busy-ms 200] [--min-sleep-ms 100] [--rounds 5 [--max-rounds M]]
 *           [--freq-file PATH --low-khz KHZ [--low-timeout-s 3]] [--timeout-s 10]
 *
 * Three threads: "light" (pinned to B: busy light-busy-ms every light-period-ms), "heavy" (busy build-ms on
 * B, then per round moves itself to A, blocks on an eventfd there and, once woken onto B, runs busy busy-ms
 * there) and the main thread, the waker (pinned to A). Per round the waker waits (bounded polling, never a
 * fixed sleep as synchronisation) until the heavy task is asleep and at least min-sleep-ms have passed since
 * it blocked; with --freq-file, until that file (B's scaling_cur_freq) reads <= low-khz (if another load keeps
 * it up for low-timeout-s, it wakes anyway: the "low" line shows what it read, so the caller can leave that
 * round out, and such rounds are added, up to max-rounds in all, until "rounds" wake-ups happened at a low
 * frequency); then until the light task is inside its busy phase with >= 200 us of it left, and the file,
 * read again there, still reads low (else it waits again). B then has a running task, so the kernel
 * performs the wake-up on A (ttwu_queue_cond() in kernel/sched/core.c hands a wake-up to an idle target's
 * wake list only), and sched_wakeup is recorded on A with target_cpu=B, outside B's idle context
 * (docs/platform.md: events raised on an idle CPU 1 are lost on the test machines).
 *
 * Why the heavy task sleeps on A: the wake-up must be one of the kernel's cpufreq hook calls on B. A task
 * woken on the CPU it slept on is enqueued with no hook call unless B's cfs signal happens to cross a PELT
 * period then (update_load_avg() → cfs_rq_util_change() only when decayed, kernel/sched/fair.c), so B's
 * policy would change at B's next decayed update, up to a tick later. So the heavy task moves itself to A
 * before it blocks (its util leaves B: sched_setaffinity() of a running task migrates it), and the waker
 * re-pins it to B while it sleeps (a sleeping task is not moved: affine_move_task()); the wake-up then
 * migrates it (select_task_rq() → set_task_cpu(): sched_migrate_task A→B, migrate_task_rq_fair() sets
 * se->avg.last_update_time = 0) and its enqueue on B attaches its util (update_load_avg(DO_ATTACH) →
 * attach_entity_load_avg() → cfs_rq_util_change()): a hook call on B's rq, run on A, which sees the heavy
 * task's util_est (util_est_enqueue() comes first in enqueue_task_fair()).
 *
 * Output, CLOCK_MONOTONIC ns (the clock of perf samples and of the emulator's write log):
 *   build <start> <end>                the heavy task's first busy phase
 *   low <round> <ns> <khz>             the frequency the waker last saw before waking, inside the light
 *                                      task's busy phase (with --freq-file)
 *   wake <round> <before> <after>      clock read right before and right after the eventfd write: the
 *                                      sched_migrate_task (A→B) and sched_wakeup of the heavy task are
 *                                      recorded between the two
 *   run <round> <start> <end>          the heavy task's busy phase after that wake-up
 *   tids light=<tid> heavy=<tid> waker=<tid>
 * Exits 1 (with a message on stderr) if a bounded wait times out or the heavy task is not asleep on A before a
 * wake-up, 2 on bad arguments.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_MSEC UINT64_C(1000000)
#define LIGHT_MARGIN_NS (200 * UINT64_C(1000))
#define ROUNDS_MAX 100

static int opt_waker_cpu = 0, opt_cpu = 1, opt_rounds = 5, opt_max_rounds = 0;
static double opt_light_busy_ms = 1, opt_light_period_ms = 6, opt_build_ms = 300, opt_busy_ms = 200,
              opt_min_sleep_ms = 100, opt_timeout_s = 10, opt_low_timeout_s = 3;
static const char *opt_freq_file;
static long opt_low_khz = -1;

static int efd = -1;
static atomic_bool stop, abort_rounds;
static _Atomic uint64_t light_busy_until;   /* end of the light task's current busy phase, 0 between */
static _Atomic int heavy_sleeping;          /* round the heavy task is (about to be) blocked for, 0 = none */
static _Atomic uint64_t heavy_blocked_ns;   /* when it started blocking */
static _Atomic int heavy_done;              /* rounds the heavy task has finished */
static _Atomic pid_t tid_light, tid_heavy;
static _Atomic int thread_error;
static uint64_t build_start, build_end, run_start[ROUNDS_MAX + 1], run_end[ROUNDS_MAX + 1];

static uint64_t mono_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

static void spin_until(uint64_t t_ns) {
        while (mono_ns() < t_ns)
                ;
}

static void sleep_until(uint64_t t_ns) {
        struct timespec ts = { .tv_sec = (time_t) (t_ns / 1000000000u), .tv_nsec = (long) (t_ns % 1000000000u) };

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

static void poll_pause(void) {
        sleep_until(mono_ns() + 2 * NSEC_PER_MSEC);
}

/* Pins task @tid (0: the caller) to @cpu. A running task is moved there before this returns. */
static int pin_task(pid_t tid, int cpu) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(tid, sizeof(set), &set) < 0) {
                int r = -errno;

                fprintf(stderr, "article: cannot pin %s to CPU %d: %s\n", tid == 0 ? "a thread" : "the heavy task", cpu,
                        strerror(-r));
                return r;
        }
        return 0;
}

static int pin(int cpu) {
        return pin_task(0, cpu);
}

static uint64_t ms_to_ns(double ms) {
        return (uint64_t) (ms * 1e6);
}

static void *light_main(void *arg) {
        uint64_t period = ms_to_ns(opt_light_period_ms), busy = ms_to_ns(opt_light_busy_ms);

        atomic_store(&tid_light, gettid());
        (void) pthread_setname_np(pthread_self(), "light"); /* the name decisions and `make run` show */
        if (pin(opt_cpu) < 0) {
                atomic_store(&thread_error, 1);
                return NULL;
        }
        for (uint64_t t = mono_ns(); !atomic_load(&stop); t += period) {
                uint64_t now = mono_ns();

                if (t + period < now) /* we were held off for more than a period: restart the grid */
                        t = now;
                atomic_store(&light_busy_until, t + busy);
                spin_until(t + busy);
                atomic_store(&light_busy_until, 0);
                sleep_until(t + period);
        }
        return NULL;
}

static void *heavy_main(void *arg) {
        uint64_t v;

        atomic_store(&tid_heavy, gettid());
        (void) pthread_setname_np(pthread_self(), "heavy");
        if (pin(opt_cpu) < 0) {
                atomic_store(&thread_error, 1);
                return NULL;
        }
        build_start = mono_ns();
        spin_until(build_start + ms_to_ns(opt_build_ms));
        build_end = mono_ns();

        for (int round = 1; round <= opt_max_rounds; round++) {
                /* Sleep on A, so that the waker's wake-up onto B is a migration (see the top of this file). */
                if (pin(opt_waker_cpu) < 0) {
                        atomic_store(&thread_error, 1);
                        return NULL;
                }
                atomic_store(&heavy_blocked_ns, mono_ns());
                atomic_store(&heavy_sleeping, round);
                while (read(efd, &v, sizeof(v)) < 0) {
                        if (errno != EINTR) {
                                fprintf(stderr, "article: eventfd read: %s\n", strerror(errno));
                                atomic_store(&thread_error, 1);
                                return NULL;
                        }
                }
                run_start[round] = mono_ns();
                atomic_store(&heavy_sleeping, 0);
                if (atomic_load(&abort_rounds))
                        return NULL;
                spin_until(run_start[round] + ms_to_ns(opt_busy_ms));
                run_end[round] = mono_ns();
                atomic_store(&heavy_done, round);
        }
        return NULL;
}

/* Bounded wait; returns false (with a message) once opt_timeout_s passed. */
static bool timed_out(uint64_t since, const char *what, int round) {
        if (atomic_load(&thread_error)) {
                fprintf(stderr, "article: a thread failed, round %d\n", round);
                return true;
        }
        if (mono_ns() - since < (uint64_t) (opt_timeout_s * 1e9))
                return false;
        fprintf(stderr, "article: timed out after %.1f s waiting for %s (round %d)\n", opt_timeout_s, what, round);
        return true;
}

/*
 * The task's state letter from /proc/self/task/TID/stat ('S' sleeping), or 0; with @ret_cpu, its field 39
 * ("processor": task_cpu(), the CPU it last ran on and, asleep, will be woken from), or -1.
 */
static char task_state(pid_t tid, int *ret_cpu) {
        char path[64], buf[1024], *p, *field;
        ssize_t n;
        int fd;

        if (ret_cpu)
                *ret_cpu = -1;
        snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int) tid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        p = strrchr(buf, ')'); /* comm may contain anything */
        if (!p || p[1] != ' ')
                return 0;
        if (ret_cpu) {
                /* p + 2 is field 3 (state): field 39 is 36 spaces further on. */
                field = p + 2;
                for (int i = 3; i < 39 && field; i++) {
                        field = strchr(field, ' ');
                        field = field ? field + 1 : NULL;
                }
                if (field)
                        *ret_cpu = atoi(field);
        }
        return p[2];
}

static long read_khz(const char *path) {
        char buf[64];
        ssize_t n;
        int fd;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return -EIO;
        buf[n] = '\0';
        return strtol(buf, NULL, 10);
}

/* The heavy task is blocked in read() for @round, and has slept at least min-sleep-ms. */
static int wait_heavy_asleep(int round) {
        uint64_t since = mono_ns();

        while (atomic_load(&heavy_sleeping) != round || task_state(atomic_load(&tid_heavy), NULL) != 'S' ||
               mono_ns() < atomic_load(&heavy_blocked_ns) + ms_to_ns(opt_min_sleep_ms)) {
                if (timed_out(since, "the heavy task to sleep", round))
                        return -ETIMEDOUT;
                poll_pause();
        }
        return 0;
}

/*
 * Asleep on A, re-pinned to B: the wake-up migrates it (affine_move_task() in kernel/sched/core.c leaves a
 * sleeping task where it is; select_task_rq() at the wake-up then finds only B allowed).
 */
static int repin_heavy(int round) {
        int heavy_cpu;

        if (task_state(atomic_load(&tid_heavy), &heavy_cpu) != 'S' || heavy_cpu != opt_waker_cpu) {
                fprintf(stderr, "article: round %d: the heavy task is not asleep on CPU %d (CPU %d)\n", round,
                        opt_waker_cpu, heavy_cpu);
                return -EIO;
        }
        return pin_task(atomic_load(&tid_heavy), opt_cpu);
}

static int read_freq(long *ret_khz) {
        long khz = read_khz(opt_freq_file);

        if (khz < 0) {
                fprintf(stderr, "article: %s: %s\n", opt_freq_file, strerror((int) -khz));
                return (int) khz;
        }
        *ret_khz = khz;
        return 0;
}

/*
 * CPU B's policy has fallen back (B's frequency <= low-khz). Returns 1 when it has, 0 when another load kept it
 * up for low-timeout-s since @since (the caller wakes anyway: the "low" line tells the round apart).
 */
static int wait_low(int round, uint64_t since, long *ret_khz) {
        int r;

        for (;;) {
                r = read_freq(ret_khz);
                if (r < 0)
                        return r;
                if (*ret_khz <= opt_low_khz)
                        return 1;
                if (atomic_load(&thread_error))
                        return -EIO;
                if (mono_ns() - since >= (uint64_t) (opt_low_timeout_s * 1e9)) {
                        fprintf(stderr, "article: round %d: %s still reads %ld kHz after %.1f s, waking anyway\n",
                                round, opt_freq_file, *ret_khz, opt_low_timeout_s);
                        return 0;
                }
                poll_pause();
        }
}

/* Whether the light task runs on B with at least @margin_ns of its busy phase left. */
static bool light_window_open(uint64_t margin_ns) {
        uint64_t until = atomic_load(&light_busy_until);

        return until != 0 && mono_ns() + margin_ns <= until;
}

/* The light task is running on B, with some of its busy phase left: spin, the window is short. */
static int wait_light_window(int round) {
        uint64_t since = mono_ns();

        while (!light_window_open(LIGHT_MARGIN_NS))
                if (timed_out(since, "the light task's busy phase", round))
                        return -ETIMEDOUT;
        return 0;
}

/*
 * Waits for the moment to wake: B's policy low and the light task inside its busy phase. The frequency is read
 * again inside that window, so that what the "low" line says holds at the wake-up: on a busy machine the light
 * task's phase can be several ms away, and another task on B can raise the policy meanwhile (that round would
 * not count, and none would be added in its place). If that read found it high, the wait starts again (until
 * low-timeout-s); if it took the window's rest (the emulator answers from A, which may be busy), the next window
 * is taken without another read: the value is then at most a light period old. Returns whether it was low.
 */
static int wait_wake_moment(int round, long *ret_khz) {
        uint64_t since = mono_ns();
        bool low_gave_up = false;
        int r;

        for (;;) {
                if (opt_freq_file && !low_gave_up) {
                        r = wait_low(round, since, ret_khz);
                        if (r < 0)
                                return r;
                        low_gave_up = r == 0;
                }
                r = wait_light_window(round);
                if (r < 0)
                        return r;
                if (!opt_freq_file)
                        return 1;
                r = read_freq(ret_khz);
                if (r < 0)
                        return r;
                if (*ret_khz > opt_low_khz && !low_gave_up)
                        continue;
                if (!light_window_open(LIGHT_MARGIN_NS / 2)) {
                        r = wait_light_window(round);
                        if (r < 0)
                                return r;
                }
                return *ret_khz <= opt_low_khz;
        }
}

static int wake_heavy(int round) {
        uint64_t before, after, since, one = 1;

        before = mono_ns();
        if (write(efd, &one, sizeof(one)) != sizeof(one)) {
                fprintf(stderr, "article: eventfd write: %s\n", strerror(errno));
                return -errno;
        }
        after = mono_ns();
        printf("wake %d %" PRIu64 " %" PRIu64 "\n", round, before, after);
        fflush(stdout);

        since = mono_ns();
        while (atomic_load(&heavy_done) < round) {
                if (timed_out(since, "the heavy task's run", round))
                        return -ETIMEDOUT;
                poll_pause();
        }
        printf("run %d %" PRIu64 " %" PRIu64 "\n", round, run_start[round], run_end[round]);
        fflush(stdout);
        return 0;
}

static int run_rounds(void) {
        int at_low = 0;

        for (int round = 1; round <= opt_max_rounds && at_low < opt_rounds; round++) {
                long khz = -1;
                int r;

                r = wait_heavy_asleep(round);
                if (r < 0)
                        return r;
                r = repin_heavy(round);
                if (r < 0)
                        return r;
                r = wait_wake_moment(round, &khz);
                if (r < 0)
                        return r;
                if (opt_freq_file)
                        printf("low %d %" PRIu64 " %ld\n", round, mono_ns(), khz);
                at_low += r;
                r = wake_heavy(round);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int parse_args(int argc, char **argv) {
        static const struct option options[] = {
                { "waker-cpu", required_argument, NULL, 'w' },
                { "cpu", required_argument, NULL, 'c' },
                { "light-busy-ms", required_argument, NULL, 'l' },
                { "light-period-ms", required_argument, NULL, 'p' },
                { "build-ms", required_argument, NULL, 'b' },
                { "busy-ms", required_argument, NULL, 'B' },
                { "min-sleep-ms", required_argument, NULL, 'm' },
                { "rounds", required_argument, NULL, 'r' },
                { "max-rounds", required_argument, NULL, 'M' },
                { "freq-file", required_argument, NULL, 'f' },
                { "low-khz", required_argument, NULL, 'k' },
                { "timeout-s", required_argument, NULL, 't' },
                { "low-timeout-s", required_argument, NULL, 'T' },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
                switch (c) {
                case 'w': opt_waker_cpu = atoi(optarg); break;
                case 'c': opt_cpu = atoi(optarg); break;
                case 'l': opt_light_busy_ms = atof(optarg); break;
                case 'p': opt_light_period_ms = atof(optarg); break;
                case 'b': opt_build_ms = atof(optarg); break;
                case 'B': opt_busy_ms = atof(optarg); break;
                case 'm': opt_min_sleep_ms = atof(optarg); break;
                case 'r': opt_rounds = atoi(optarg); break;
                case 'M': opt_max_rounds = atoi(optarg); break;
                case 'f': opt_freq_file = optarg; break;
                case 'k': opt_low_khz = atol(optarg); break;
                case 't': opt_timeout_s = atof(optarg); break;
                case 'T': opt_low_timeout_s = atof(optarg); break;
                default: return -EINVAL;
                }
        }
        if (opt_max_rounds == 0)
                opt_max_rounds = opt_rounds;
        if (optind != argc || opt_rounds < 1 || opt_max_rounds < opt_rounds || opt_max_rounds > ROUNDS_MAX || opt_light_period_ms <= 0 ||
            opt_light_busy_ms * 1e6 < 2 * LIGHT_MARGIN_NS || opt_light_busy_ms >= opt_light_period_ms ||
            opt_build_ms <= 0 || opt_busy_ms <= 0 || opt_min_sleep_ms < 0 || opt_timeout_s <= 0 || opt_low_timeout_s <= 0 ||
            opt_waker_cpu == opt_cpu || (opt_freq_file && opt_low_khz < 0)) {
                fprintf(stderr, "article: bad arguments (see the comment at the top of tests/helpers/article.c)\n");
                return -EINVAL;
        }
        return 0;
}

int main(int argc, char **argv) {
        pthread_t light, heavy;
        int r;

        if (parse_args(argc, argv) < 0)
                return 2;

        efd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
        if (efd < 0) {
                fprintf(stderr, "article: eventfd: %s\n", strerror(errno));
                return 1;
        }
        if (pin(opt_waker_cpu) < 0)
                return 1;

        if (pthread_create(&light, NULL, light_main, NULL) != 0) {
                fprintf(stderr, "article: cannot start the light task\n");
                return 1;
        }
        if (pthread_create(&heavy, NULL, heavy_main, NULL) != 0) {
                fprintf(stderr, "article: cannot start the heavy task\n");
                atomic_store(&stop, true);
                pthread_join(light, NULL);
                return 1;
        }

        r = run_rounds();

        if (atomic_load(&heavy_done) < opt_max_rounds) {
                /* Release the heavy task from the round it waits in (EFD_SEMAPHORE: one read, one unit). */
                uint64_t one = 1;

                atomic_store(&abort_rounds, true);
                (void) !write(efd, &one, sizeof(one));
        }
        pthread_join(heavy, NULL);
        atomic_store(&stop, true);
        pthread_join(light, NULL);

        printf("build %" PRIu64 " %" PRIu64 "\n", build_start, build_end);
        printf("tids light=%d heavy=%d waker=%d\n", (int) tid_light, (int) tid_heavy, (int) gettid());
        return r < 0 ? 1 : 0;
}
