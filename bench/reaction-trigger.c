/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reaction-trigger: the triggering side of bench/bench-reaction.sh (issue #12 item 1). It runs trials of one
 * scenario on CPU B (default 1) and times each against the emulator's write log, for any governor: nothing
 * here knows schedfreqd.
 *
 *   reaction-trigger --scenario a|b|c --log EMU_LOG --freq-file PATH --trials N
 *                    [--cpu 1] [--waker-cpu 0] [--policy 1] [--low-khz K] [--max-khz K] [--bound-ms 200]
 *                    [--margin-ms 2] [--fall-timeout-ms 2000] [--settle-ms 20] [--redo-max N] [--build-ms 300]
 *                    [--showcase-ms 0] [--pre-ms 20] [--waker-nice 0] [--rt-prio 10]
 *
 * Scenarios (threads pinned; the controller, which is the waker, on the waker CPU):
 *   a  the article's: "light" on B (busy 1 ms every 6 ms) and "heavy" on B, which builds a high util/util_est
 *      once (build-ms busy) and then per trial blocks on an eventfd; the controller writes the eventfd while
 *      the light task is inside its busy phase, so that the kernel performs the wake-up on the waker's CPU
 *      (ttwu_queue_cond() in kernel/sched/core.c queues a wake-up on the target's wake list only if the
 *      target is idle) and sched_wakeup is recorded there with target_cpu=B, not in B's idle context
 *      (docs/platform.md: such events are lost on the test VMs). Trigger: the controller's clock read right
 *      before the eventfd write.
 *   b  a CPU hog starts on an idle B: a "launcher" thread pinned to B (woken from the waker CPU; its own
 *      wake-up is raised in B's idle context and may go unrecorded) reads the clock and creates the hog, a
 *      new SCHED_OTHER thread that inherits its affinity: wake_up_new_task() places it on B and
 *      sched_wakeup_new is raised in the launcher's context on B, where it is recorded. Trigger: the
 *      launcher's clock read right before pthread_create().
 *   c  an RT task wakes on B: "light" on B as in (a), and a SCHED_FIFO (rt-prio) thread pinned to B woken
 *      like the heavy task of (a) (the same trigger). schedutil asks for the maximum while an RT task is
 *      runnable (sugov_get_util(): cpu_util_cfs_boost() + uclamp for RT is max without uclamp limits).
 *
 * Each trial: wait (bounded polling) until the worker is blocked and policy1 reads <= low-khz in the log
 * with no step for settle-ms;
 * if it does not fall within fall-timeout-ms the wait is counted ("redo nofall") and starts again. Then
 * trigger, and keep the worker busy until the log shows policy1 at max-khz plus margin-ms, or bound-ms after
 * the trigger. A trial whose policy was above low-khz at the trigger (raised in between) is counted ("redo
 * raised") and done again. At most redo-max redos in all, then exit 1.
 *
 * Reaction (the same definition for every governor): from the trigger to the first "scaling_cur_freq ... set"
 * line of the policy, stamped at or after the trigger, above the frequency it had at the trigger; -1 if there
 * is none within bound-ms. Time to max: to the first such line at max-khz (-1 if none within bound-ms).
 *
 * Output (CLOCK_MONOTONIC ns, the clock of the emulator's write log):
 *   trial N TRIGGER KHZ_AT LATENCY_NS TMAX_NS END WRITE_NS   END: the worker stopped; WRITE_NS: the eventfd
 *                                                              write's duration (a, c) or pthread_create's (b)
 *   redo N nofall|raised KHZ
 *   step T_NS KHZ        with --showcase-ms S (a only): after the trials, the heavy task rebuilds its util
 *                        (build-ms), then one more trial whose heavy phase lasts S ms whatever happens; the
 *                        policy's frequency steps from pre-ms before its trigger to its end, t relative to
 *                        the trigger
 *   done trials=N nofall=N raised=N
 * Exit: 0, 1 if a bounded wait timed out or too many redos, 2 on bad arguments.
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
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "time-util.h"

#define NSEC_PER_MSEC UINT64_C(1000000)
#define LIGHT_BUSY_NS (1 * NSEC_PER_MSEC)
#define LIGHT_PERIOD_NS (6 * NSEC_PER_MSEC)
#define LIGHT_MARGIN_NS (200 * NSEC_PER_USEC)
#define WAIT_TIMEOUT_NS (10 * NSEC_PER_SEC)      /* any other bounded wait */
#define WORKER_CAP_NS (20 * NSEC_PER_SEC)        /* a worker stops by itself after this long busy */

/* --- options ----------------------------------------------------------------------------------------------- */

static char opt_scenario;
static const char *opt_log, *opt_freq_file;
static int opt_cpu = 1, opt_waker_cpu = 0, opt_policy = 1, opt_trials, opt_redo_max = -1, opt_waker_nice,
           opt_rt_prio = 10;
static long opt_low_khz = -1, opt_max_khz = -1;
static uint64_t opt_bound_ns = 200 * NSEC_PER_MSEC, opt_margin_ns = 2 * NSEC_PER_MSEC,
                opt_fall_timeout_ns = 2000 * NSEC_PER_MSEC, opt_build_ns = 300 * NSEC_PER_MSEC, opt_showcase_ns,
                opt_pre_ns = 20 * NSEC_PER_MSEC, opt_settle_ns = 20 * NSEC_PER_MSEC;

/* --- the policy's frequency, from the emulator's write log ----------------------------------------------------- */

typedef struct Step {
        uint64_t ns;
        long khz;
} Step;

typedef struct LogTail {
        int fd;
        char match[64];       /* "cpufreq/policyN/scaling_cur_freq" */
        char buf[1 << 16];
        size_t len;           /* bytes of an incomplete line kept in buf */
        long khz0;            /* before the first step */
        Step *steps;
        size_t n, cap;
} LogTail;

static int log_add(LogTail *t, uint64_t ns, long khz) {
        if (t->n == t->cap) {
                size_t cap = t->cap ? 2 * t->cap : 1024;
                Step *s = realloc(t->steps, cap * sizeof(Step));

                if (!s)
                        return -ENOMEM;
                t->steps = s;
                t->cap = cap;
        }
        t->steps[t->n++] = (Step) { ns, khz };
        return 0;
}

/* "<ns> cpufreq/policyN/scaling_cur_freq <khz> set" (tests/emu/emu-log.c); other lines are not ours. */
static int log_line(LogTail *t, const char *line) {
        char path[256], what[16];
        uint64_t ns;
        long khz;

        if (sscanf(line, "%" SCNu64 " %255s %ld %15s", &ns, path, &khz, what) != 4)
                return 0;
        if (strcmp(path, t->match) != 0 || strcmp(what, "set") != 0)
                return 0;
        return log_add(t, ns, khz);
}

/* Reads what the emulator appended since the last call. */
static int log_poll(LogTail *t) {
        for (;;) {
                ssize_t n = read(t->fd, t->buf + t->len, sizeof(t->buf) - 1 - t->len);
                char *p, *nl;

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return 0;
                t->len += (size_t) n;
                t->buf[t->len] = '\0';
                for (p = t->buf; (nl = strchr(p, '\n')); p = nl + 1) {
                        int r;

                        *nl = '\0';
                        r = log_line(t, p);
                        if (r < 0)
                                return r;
                }
                t->len -= (size_t) (p - t->buf);
                memmove(t->buf, p, t->len);
                if (t->len == sizeof(t->buf) - 1)
                        t->len = 0; /* a line longer than the buffer is not one of ours */
        }
}

static long log_khz_at(const LogTail *t, uint64_t ns) { /* the frequency just before @ns */
        long khz = t->khz0;

        for (size_t i = 0; i < t->n && t->steps[i].ns < ns; i++)
                khz = t->steps[i].khz;
        return khz;
}

static uint64_t log_last_ns(const LogTail *t) {
        return t->n ? t->steps[t->n - 1].ns : 0;
}

static long log_khz_now(const LogTail *t) {
        return t->n ? t->steps[t->n - 1].khz : t->khz0;
}

/* First step at or after @from above @above_khz (or, with @at_least, at >= @above_khz); 0 if none. */
static uint64_t log_first(const LogTail *t, uint64_t from, long khz, bool at_least) {
        for (size_t i = 0; i < t->n; i++)
                if (t->steps[i].ns >= from && (at_least ? t->steps[i].khz >= khz : t->steps[i].khz > khz))
                        return t->steps[i].ns;
        return 0;
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

/* Starts at the log's end; the frequency until the first new step is what the sysfs file reads now. */
static int log_open(LogTail *t) {
        snprintf(t->match, sizeof(t->match), "cpufreq/policy%d/scaling_cur_freq", opt_policy);
        t->fd = open(opt_log, O_RDONLY | O_CLOEXEC);
        if (t->fd < 0)
                return -errno;
        if (lseek(t->fd, 0, SEEK_END) < 0)
                return -errno;
        t->khz0 = read_khz(opt_freq_file);
        return t->khz0 < 0 ? (int) t->khz0 : 0;
}

/* --- the tasks on CPU B -------------------------------------------------------------------------------------- */

static int efd = -1;
static atomic_bool stop_all, stop_phase;
static _Atomic uint64_t light_busy_until;  /* end of the light task's current busy phase, 0 between */
static _Atomic pid_t worker_tid;           /* the thread the controller wakes (heavy, launcher, rt) */
static _Atomic int worker_blocked;         /* phases the worker has finished and blocked after */
static _Atomic uint64_t launch_ns;         /* (b) the launcher's trigger */
static _Atomic uint64_t create_ns;         /* (b) how long pthread_create() took */
static _Atomic int thread_error;

static void spin_until(uint64_t t_ns) {
        while (monotonic_ns() < t_ns)
                ;
}

static void sleep_until(uint64_t t_ns) {
        struct timespec ts = { .tv_sec = (time_t) (t_ns / NSEC_PER_SEC), .tv_nsec = (long) (t_ns % NSEC_PER_SEC) };

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

static void sleep_ms(unsigned ms) {
        sleep_until(monotonic_ns() + ms * NSEC_PER_MSEC);
}

static int pin(int cpu) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set) < 0) {
                fprintf(stderr, "reaction-trigger: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
                return -errno;
        }
        return 0;
}

static int set_fifo(int prio) {
        struct sched_param sp = { .sched_priority = prio };

        if (prio > 0 && sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
                fprintf(stderr, "reaction-trigger: SCHED_FIFO %d: %s\n", prio, strerror(errno));
                return -errno;
        }
        return 0;
}

/*
 * The controller stays SCHED_OTHER: a SCHED_FIFO waker is an RT task on the waker's CPU to a governor that models
 * RT demand as schedutil does (schedfreqd), which would then toggle that CPU's policy at each of its polls. A low
 * nice value keeps a background load from preempting it between its clock read and its eventfd write.
 */
static int set_nice(int nice) {
        if (nice != 0 && setpriority(PRIO_PROCESS, (id_t) gettid(), nice) < 0) {
                fprintf(stderr, "reaction-trigger: nice %d: %s\n", nice, strerror(errno));
                return -errno;
        }
        return 0;
}

static void *light_main(void *arg) {
        if (pin(opt_cpu) < 0) {
                atomic_store(&thread_error, 1);
                return NULL;
        }
        for (uint64_t t = monotonic_ns(); !atomic_load(&stop_all); t += LIGHT_PERIOD_NS) {
                uint64_t now = monotonic_ns();

                if (t + LIGHT_PERIOD_NS < now) /* held off for more than a period: restart the grid */
                        t = now;
                atomic_store(&light_busy_until, t + LIGHT_BUSY_NS);
                spin_until(t + LIGHT_BUSY_NS);
                atomic_store(&light_busy_until, 0);
                sleep_until(t + LIGHT_PERIOD_NS);
        }
        return NULL;
}

/* Busy until the controller ends the phase (bounded by WORKER_CAP_NS). */
static void busy_phase(void) {
        uint64_t cap = monotonic_ns() + WORKER_CAP_NS;

        while (!atomic_load(&stop_phase) && !atomic_load(&stop_all) && monotonic_ns() < cap)
                ;
}

static bool wait_efd(void) { /* false: stop */
        uint64_t v;

        while (read(efd, &v, sizeof(v)) < 0) {
                if (errno != EINTR) {
                        fprintf(stderr, "reaction-trigger: eventfd read: %s\n", strerror(errno));
                        atomic_store(&thread_error, 1);
                        return false;
                }
        }
        return !atomic_load(&stop_all);
}

static void *hog_main(void *arg) {
        busy_phase();
        return NULL;
}

/* The heavy task (a), the RT task (c) or the launcher (b): one busy phase (or one hog) per eventfd unit. */
static void *worker_main(void *arg) {
        atomic_store(&worker_tid, gettid());
        if (pin(opt_cpu) < 0 || (opt_scenario == 'c' && set_fifo(opt_rt_prio) < 0)) {
                atomic_store(&thread_error, 1);
                return NULL;
        }
        if (opt_scenario == 'a') /* the heavy task's util and util_est, once */
                spin_until(monotonic_ns() + opt_build_ns);

        for (;;) {
                atomic_fetch_add(&worker_blocked, 1);
                if (!wait_efd())
                        return NULL;
                if (opt_scenario != 'b') {
                        busy_phase();
                        continue;
                }

                /* The hog: a new SCHED_OTHER thread, created on B by a task running on B. */
                pthread_attr_t attr;
                struct sched_param sp = {};
                pthread_t hog;
                uint64_t t0;
                int r;

                pthread_attr_init(&attr);
                pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
                pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
                pthread_attr_setschedparam(&attr, &sp);
                t0 = monotonic_ns();
                r = pthread_create(&hog, &attr, hog_main, NULL);
                atomic_store(&create_ns, monotonic_ns() - t0);
                atomic_store(&launch_ns, t0);
                pthread_attr_destroy(&attr);
                if (r != 0) {
                        fprintf(stderr, "reaction-trigger: cannot start the hog: %s\n", strerror(r));
                        atomic_store(&thread_error, 1);
                        return NULL;
                }
                pthread_join(hog, NULL);
        }
}

/* --- the controller ---------------------------------------------------------------------------------------- */

typedef struct Counts {
        int trials, nofall, raised;
} Counts;

static bool timed_out(uint64_t since, uint64_t limit_ns, const char *what) {
        if (atomic_load(&thread_error)) {
                fprintf(stderr, "reaction-trigger: a thread failed\n");
                return true;
        }
        if (monotonic_ns() - since < limit_ns)
                return false;
        fprintf(stderr, "reaction-trigger: timed out waiting for %s\n", what);
        return true;
}

/* The task's state letter from /proc/self/task/TID/stat ('S' sleeping), or 0. */
static char task_state(pid_t tid) {
        char path[64], buf[512], *p;
        ssize_t n;
        int fd;

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
        return p && p[1] == ' ' ? p[2] : 0;
}

/* The worker finished @phases busy phases and is blocked again (it blocks once more than it ran). */
static int wait_worker_blocked(int phases) {
        uint64_t since = monotonic_ns();

        while (atomic_load(&worker_blocked) < phases + 1 || task_state(atomic_load(&worker_tid)) != 'S') {
                if (timed_out(since, WAIT_TIMEOUT_NS + opt_build_ns, "the worker to block"))
                        return -ETIMEDOUT;
                sleep_ms(1);
        }
        return 0;
}

/* The policy at or below low-khz: 0; -EAGAIN if not within fall-timeout-ms (another load keeps it up). */
static int wait_low(LogTail *t) {
        uint64_t since = monotonic_ns();

        for (;;) {
                int r = log_poll(t);

                if (r < 0)
                        return r;
                /* Low, and settled: no step for settle-ms (it does not hover at the edge of a step). */
                if (log_khz_now(t) <= opt_low_khz && monotonic_ns() >= log_last_ns(t) + opt_settle_ns)
                        return 0;
                if (atomic_load(&thread_error))
                        return -EIO;
                if (monotonic_ns() - since >= opt_fall_timeout_ns)
                        return -EAGAIN;
                sleep_ms(2);
        }
}

/* The light task is running on B with some of its busy phase left: spin, the window is short. */
static int wait_light_busy(void) {
        uint64_t since = monotonic_ns();

        for (;;) {
                uint64_t until = atomic_load(&light_busy_until), now = monotonic_ns();

                if (until != 0 && now + LIGHT_MARGIN_NS <= until)
                        return 0;
                if (timed_out(since, WAIT_TIMEOUT_NS, "the light task's busy phase"))
                        return -ETIMEDOUT;
        }
}

/* Wakes the worker; returns the trigger time and in *ret_write_ns the duration of the triggering call. */
static int trigger(uint64_t *ret_trigger, uint64_t *ret_write_ns) {
        uint64_t before, after, one = 1, since;

        if (opt_scenario != 'b') {
                int r = wait_light_busy();

                if (r < 0)
                        return r;
        }
        atomic_store(&launch_ns, 0);
        before = monotonic_ns();
        if (write(efd, &one, sizeof(one)) != sizeof(one)) {
                fprintf(stderr, "reaction-trigger: eventfd write: %s\n", strerror(errno));
                return -errno;
        }
        after = monotonic_ns();
        if (opt_scenario != 'b') {
                *ret_trigger = before;
                *ret_write_ns = after - before;
                return 0;
        }
        since = monotonic_ns();
        while (atomic_load(&launch_ns) == 0) {
                if (timed_out(since, WAIT_TIMEOUT_NS, "the launcher"))
                        return -ETIMEDOUT;
                sleep_ms(1);
        }
        *ret_trigger = atomic_load(&launch_ns);
        *ret_write_ns = atomic_load(&create_ns);
        return 0;
}

/*
 * Keeps the worker busy for @fixed_ns, or (0) until the policy reached max-khz plus margin-ms or bound-ms
 * passed; returns when it blocked again.
 */
static int run_phase(LogTail *t, uint64_t trigger_ns, uint64_t fixed_ns, int phases, uint64_t *ret_end) {
        int r;

        for (;;) {
                uint64_t now = monotonic_ns(), tmax;

                if (fixed_ns > 0) {
                        if (now >= trigger_ns + fixed_ns)
                                break;
                } else {
                        r = log_poll(t);
                        if (r < 0)
                                return r;
                        tmax = log_first(t, trigger_ns, opt_max_khz, true);
                        if ((tmax != 0 && now >= tmax + opt_margin_ns) || now >= trigger_ns + opt_bound_ns)
                                break;
                }
                if (atomic_load(&thread_error))
                        return -EIO;
                sleep_ms(1);
        }
        *ret_end = monotonic_ns();
        atomic_store(&stop_phase, true);
        r = wait_worker_blocked(phases + 1);
        atomic_store(&stop_phase, false);
        return r;
}

/*
 * One trial, redone until valid; @phases counts the worker's busy phases so far. With @fixed_ns (showcase)
 * the phase lasts that long and the steps around it are printed instead of a trial line.
 */
static int run_trial(LogTail *t, int n, int *phases, uint64_t fixed_ns, Counts *c) {
        for (;;) {
                uint64_t trig, write_ns, end, lat, tmax;
                long khz_at;
                int r;

                r = wait_worker_blocked(*phases);
                if (r < 0)
                        return r;
                r = wait_low(t);
                if (r == -EAGAIN) {
                        c->nofall++;
                        printf("redo %d nofall %ld\n", n, log_khz_now(t));
                        fflush(stdout);
                        if (c->nofall + c->raised > opt_redo_max) {
                                fprintf(stderr, "reaction-trigger: policy%d did not fall to <= %ld kHz (%d times)\n",
                                        opt_policy, opt_low_khz, c->nofall);
                                return -ETIMEDOUT;
                        }
                        continue;
                }
                if (r < 0)
                        return r;

                r = trigger(&trig, &write_ns);
                if (r < 0)
                        return r;
                r = run_phase(t, trig, fixed_ns, *phases, &end);
                (*phases)++;
                if (r < 0)
                        return r;
                r = log_poll(t);
                if (r < 0)
                        return r;

                khz_at = log_khz_at(t, trig);
                if (khz_at > opt_low_khz) {
                        c->raised++;
                        printf("redo %d raised %ld\n", n, khz_at);
                        fflush(stdout);
                        if (c->nofall + c->raised > opt_redo_max) {
                                fprintf(stderr, "reaction-trigger: too many redos\n");
                                return -ETIMEDOUT;
                        }
                        continue;
                }

                if (fixed_ns > 0) {
                        uint64_t from = trig - opt_pre_ns;

                        printf("step %" PRId64 " %ld\n", -(int64_t) opt_pre_ns, log_khz_at(t, from));
                        for (size_t i = 0; i < t->n; i++)
                                if (t->steps[i].ns >= from && t->steps[i].ns <= end)
                                        printf("step %" PRId64 " %ld\n", (int64_t) (t->steps[i].ns - trig),
                                               t->steps[i].khz);
                        printf("step %" PRId64 " %ld\n", (int64_t) (end - trig), log_khz_at(t, end + 1));
                        return 0;
                }
                lat = log_first(t, trig, khz_at, false);
                tmax = log_first(t, trig, opt_max_khz, true);
                printf("trial %d %" PRIu64 " %ld %" PRId64 " %" PRId64 " %" PRIu64 " %" PRIu64 "\n", n, trig, khz_at,
                       lat && lat - trig <= opt_bound_ns ? (int64_t) (lat - trig) : -1,
                       tmax && tmax - trig <= opt_bound_ns ? (int64_t) (tmax - trig) : -1, end, write_ns);
                fflush(stdout);
                c->trials++;
                return 0;
        }
}

/* The showcase (a): rebuild the heavy task's util, then one trial with a heavy phase of showcase-ms. */
static int run_showcase(LogTail *t, int *phases, Counts *c) {
        uint64_t trig, write_ns, end;
        int r;

        r = wait_worker_blocked(*phases);
        if (r < 0)
                return r;
        r = trigger(&trig, &write_ns);
        if (r < 0)
                return r;
        r = run_phase(t, trig, opt_build_ns, *phases, &end);
        (*phases)++;
        if (r < 0)
                return r;
        return run_trial(t, 0, phases, opt_showcase_ns, c);
}

static int run(void) {
        LogTail t = { .fd = -1 };
        Counts c = {};
        int phases = 0, r;

        r = log_open(&t);
        if (r < 0) {
                fprintf(stderr, "reaction-trigger: %s / %s: %s\n", opt_log, opt_freq_file, strerror(-r));
                goto out;
        }
        for (int n = 1; n <= opt_trials && r >= 0; n++)
                r = run_trial(&t, n, &phases, 0, &c);
        if (r >= 0 && opt_showcase_ns > 0)
                r = run_showcase(&t, &phases, &c);
        printf("done trials=%d nofall=%d raised=%d\n", c.trials, c.nofall, c.raised);
out:
        if (t.fd >= 0)
                close(t.fd);
        free(t.steps);
        return r;
}

static uint64_t ms_ns(const char *s) {
        return (uint64_t) (atof(s) * 1e6);
}

static int parse_args(int argc, char **argv) {
        static const struct option options[] = {
                { "scenario", required_argument, NULL, 's' },   { "log", required_argument, NULL, 'l' },
                { "freq-file", required_argument, NULL, 'f' },  { "trials", required_argument, NULL, 'n' },
                { "cpu", required_argument, NULL, 'c' },        { "waker-cpu", required_argument, NULL, 'w' },
                { "policy", required_argument, NULL, 'p' },     { "low-khz", required_argument, NULL, 'k' },
                { "max-khz", required_argument, NULL, 'K' },    { "bound-ms", required_argument, NULL, 'B' },
                { "margin-ms", required_argument, NULL, 'm' },  { "fall-timeout-ms", required_argument, NULL, 'F' },
                { "redo-max", required_argument, NULL, 'R' },   { "build-ms", required_argument, NULL, 'b' },
                { "showcase-ms", required_argument, NULL, 'S' }, { "pre-ms", required_argument, NULL, 'P' },
                { "waker-nice", required_argument, NULL, 'W' }, { "rt-prio", required_argument, NULL, 'r' },
                { "settle-ms", required_argument, NULL, 'T' },
                {}
        };
        int ch;

        while ((ch = getopt_long(argc, argv, "", options, NULL)) >= 0) {
                switch (ch) {
                case 's': opt_scenario = optarg[0] && !optarg[1] ? optarg[0] : '?'; break;
                case 'l': opt_log = optarg; break;
                case 'f': opt_freq_file = optarg; break;
                case 'n': opt_trials = atoi(optarg); break;
                case 'c': opt_cpu = atoi(optarg); break;
                case 'w': opt_waker_cpu = atoi(optarg); break;
                case 'p': opt_policy = atoi(optarg); break;
                case 'k': opt_low_khz = atol(optarg); break;
                case 'K': opt_max_khz = atol(optarg); break;
                case 'B': opt_bound_ns = ms_ns(optarg); break;
                case 'm': opt_margin_ns = ms_ns(optarg); break;
                case 'F': opt_fall_timeout_ns = ms_ns(optarg); break;
                case 'R': opt_redo_max = atoi(optarg); break;
                case 'b': opt_build_ns = ms_ns(optarg); break;
                case 'S': opt_showcase_ns = ms_ns(optarg); break;
                case 'P': opt_pre_ns = ms_ns(optarg); break;
                case 'W': opt_waker_nice = atoi(optarg); break;
                case 'r': opt_rt_prio = atoi(optarg); break;
                case 'T': opt_settle_ns = ms_ns(optarg); break;
                default: return -EINVAL;
                }
        }
        if (opt_redo_max < 0)
                opt_redo_max = opt_trials + 10;
        if (optind != argc || !strchr("abc", opt_scenario) || opt_scenario == '\0' || !opt_log || !opt_freq_file ||
            opt_trials < 1 || opt_low_khz < 0 || opt_max_khz <= opt_low_khz || opt_bound_ns == 0 ||
            opt_fall_timeout_ns == 0 || opt_build_ns == 0 || opt_cpu == opt_waker_cpu || opt_waker_nice < -20 ||
            opt_waker_nice > 19 || opt_rt_prio < 1 || opt_rt_prio > 99 || (opt_showcase_ns > 0 && opt_scenario != 'a')) {
                fprintf(stderr, "reaction-trigger: bad arguments (see the comment at the top of bench/reaction-trigger.c)\n");
                return -EINVAL;
        }
        return 0;
}

int main(int argc, char **argv) {
        pthread_t light, worker;
        bool with_light;
        int r;

        if (parse_args(argc, argv) < 0)
                return 2;
        setvbuf(stdout, NULL, _IOLBF, 0);

        efd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
        if (efd < 0) {
                fprintf(stderr, "reaction-trigger: eventfd: %s\n", strerror(errno));
                return 1;
        }
        if (pin(opt_waker_cpu) < 0)
                return 1;

        with_light = opt_scenario != 'b';
        if (with_light && pthread_create(&light, NULL, light_main, NULL) != 0) {
                fprintf(stderr, "reaction-trigger: cannot start the light task\n");
                return 1;
        }
        /* Created before the controller changes its nice value: the workers must not inherit it. */
        if (pthread_create(&worker, NULL, worker_main, NULL) != 0) {
                fprintf(stderr, "reaction-trigger: cannot start the worker\n");
                atomic_store(&stop_all, true);
                if (with_light)
                        pthread_join(light, NULL);
                return 1;
        }
        r = set_nice(opt_waker_nice);
        if (r >= 0)
                r = run();

        /* Release the worker: it is blocked (or about to block) on the eventfd, or busy until stop_all. */
        uint64_t one = 1;

        atomic_store(&stop_all, true);
        (void) !write(efd, &one, sizeof(one));
        pthread_join(worker, NULL);
        if (with_light)
                pthread_join(light, NULL);
        return r < 0 ? 1 : 0;
}
