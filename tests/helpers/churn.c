/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * churn: the soak test's load (tests/soak/run-soak.sh, issue 11): many scheduler events a second, and a stream
 * of short-lived processes and threads, for as long as asked.
 *   churn [--seconds S] [--pairs N] [--cross] [--forks R] [--fork] [--threads R] [--progress-ms M]
 * - N ping-pong pairs: two threads passing one byte back and forth through two pipes, so every round trip is
 *   two wake-ups and two context switches (each a sched_wakeup, a sched_switch and a sched_stat_runtime for
 *   the daemon). By default a pair's threads go where the kernel puts them; --cross pins the two threads of a
 *   pair to different CPUs, so every wake-up is a remote one (fewer round trips: each costs an IPI).
 * - a fork/exit loop at R forks a second (0: none): each child _exit()s at once (sched_wakeup_new,
 *   sched_process_exit, the parent's wake-up), reaped as they go, at most CHILDREN_MAX alive at a time.
 *   The children are made with vfork() unless --fork is given: to the scheduler and the proc connector a
 *   vfork child is a process like any other (a new pid, fork, exec-less exit), but it shares the parent's
 *   memory, while a real fork() copies the page tables and then takes a copy-on-write fault per page touched.
 *   On the project's VMs that costs about 1.2 ms of CPU per fork (~20 faults, 2.8 ms wall: 350 forks/s on an
 *   idle machine, docs/reliability.md "Soak"), against 36 µs per vfork: 1000 real forks a second would take
 *   more than a whole vCPU away from the rest of the load.
 * - a pthread create/join loop at R threads a second (0: none), at most THREADS_MAX alive at a time.
 * Both loops are paced on CLOCK_MONOTONIC deadlines and catch up (a burst of up to a second's worth) after a
 * stall, so the achieved rate is the asked one unless the machine cannot give it.
 * S = 0 runs until SIGTERM or SIGINT. Prints "start <ns>", then every M ms (default 0: never) a line
 * "progress <ns> forks <n> threads <n> roundtrips <n>" (cumulative, for a sampler), then at the end
 * "end <ns>" and one summary line with the achieved rates.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAIRS_MAX 64
#define CHILDREN_MAX 256u
#define THREADS_MAX 64u
#define THREAD_STACK_BYTES (64u * 1024u)
#define NSEC_PER_SEC UINT64_C(1000000000)

typedef struct Pair {
        int ab[2], ba[2]; /* pipes: a → b and b → a */
        int cpu_a, cpu_b; /* -1: unpinned */
        uint64_t roundtrips;
        pthread_t a, b;
} Pair;

typedef struct Loop {
        double rate_per_s;
        bool real_fork;   /* fork() rather than vfork() */
        uint64_t done;
        pthread_t thread;
} Loop;

static volatile sig_atomic_t stop_signal;
static bool stop; /* read and written with __atomic */

static bool stopping(void) {
        return stop_signal || __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

static uint64_t mono_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

static void sleep_until(uint64_t t_ns) {
        struct timespec ts = { .tv_sec = (time_t) (t_ns / NSEC_PER_SEC), .tv_nsec = (long) (t_ns % NSEC_PER_SEC) };

        /* A signal ends the sleep early: the caller re-checks stopping(). */
        (void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void pin(int cpu) {
        cpu_set_t set;

        if (cpu < 0)
                return;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        (void) sched_setaffinity(0, sizeof(set), &set);
}

static void counter_add(uint64_t *c) {
        __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static uint64_t counter_get(const uint64_t *c) {
        return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* The pair ends from side a: once stopping, a closes its write end; b reads EOF, closes its own, and a reads
 * EOF in turn. Neither side can be left blocked. */
static void *pair_a(void *arg) {
        Pair *p = arg;
        char c = 0;

        pin(p->cpu_a);
        while (!stopping()) {
                if (write(p->ab[1], &c, 1) != 1 || read(p->ba[0], &c, 1) != 1)
                        break;
                counter_add(&p->roundtrips);
        }
        close(p->ab[1]);
        while (read(p->ba[0], &c, 1) > 0)
                ;
        return NULL;
}

static void *pair_b(void *arg) {
        Pair *p = arg;
        char c;

        pin(p->cpu_b);
        while (read(p->ab[0], &c, 1) == 1)
                if (write(p->ba[1], &c, 1) != 1)
                        break;
        close(p->ba[1]);
        return NULL;
}

/* The next deadline of a paced loop; after a stall of more than a second it forgets the backlog rather than
 * bursting for longer. */
static uint64_t next_deadline(uint64_t deadline, uint64_t gap_ns) {
        uint64_t now = mono_ns();

        deadline += gap_ns;
        if (deadline + NSEC_PER_SEC < now)
                deadline = now - NSEC_PER_SEC;
        return deadline;
}

static void reap_children(int flags, unsigned *alive) {
        while (*alive > 0) {
                pid_t p = waitpid(-1, NULL, flags);

                if (p > 0)
                        (*alive)--;
                else if (p == 0 || errno != EINTR)
                        break;
        }
}

/* A function of its own so that nothing of the caller's frame lives across vfork(); the child only calls
 * _exit(), which is all vfork() allows. */
static __attribute__((noinline)) pid_t spawn_child(bool real_fork) {
        pid_t p = real_fork ? fork() : vfork();

        if (p == 0)
                _exit(0);
        return p;
}

static void *fork_loop(void *arg) {
        Loop *l = arg;
        uint64_t gap_ns = (uint64_t) (1e9 / l->rate_per_s), deadline = mono_ns();
        unsigned alive = 0;

        while (!stopping()) {
                pid_t p;

                if (deadline > mono_ns())
                        sleep_until(deadline);
                if (alive >= CHILDREN_MAX)
                        reap_children(0, &alive);
                p = spawn_child(l->real_fork);
                if (p > 0) {
                        alive++;
                        counter_add(&l->done);
                } else if (errno != EAGAIN)
                        fprintf(stderr, "churn: fork: %s\n", strerror(errno));
                reap_children(WNOHANG, &alive);
                deadline = next_deadline(deadline, gap_ns);
        }
        reap_children(0, &alive);
        return NULL;
}

static void *thread_body(void *arg) {
        return arg;
}

static void *thread_loop(void *arg) {
        Loop *l = arg;
        uint64_t gap_ns = (uint64_t) (1e9 / l->rate_per_s), deadline = mono_ns();
        pthread_t ring[THREADS_MAX];
        unsigned head = 0, alive = 0;
        pthread_attr_t attr;

        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, THREAD_STACK_BYTES);
        while (!stopping()) {
                int r;

                if (deadline > mono_ns())
                        sleep_until(deadline);
                if (alive == THREADS_MAX) { /* join the oldest */
                        pthread_join(ring[(head + THREADS_MAX - alive) % THREADS_MAX], NULL);
                        alive--;
                }
                r = pthread_create(&ring[head], &attr, thread_body, NULL);
                if (r == 0) {
                        head = (head + 1) % THREADS_MAX;
                        alive++;
                        counter_add(&l->done);
                } else if (r != EAGAIN)
                        fprintf(stderr, "churn: pthread_create: %s\n", strerror(r));
                deadline = next_deadline(deadline, gap_ns);
        }
        for (; alive > 0; alive--)
                pthread_join(ring[(head + THREADS_MAX - alive) % THREADS_MAX], NULL);
        pthread_attr_destroy(&attr);
        return NULL;
}

static void on_signal(int sig) {
        stop_signal = 1;
}

static uint64_t pairs_roundtrips(Pair *pairs, unsigned n) {
        uint64_t sum = 0;

        for (unsigned i = 0; i < n; i++)
                sum += counter_get(&pairs[i].roundtrips);
        return sum;
}

static int pairs_start(Pair *pairs, unsigned n, bool cross) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

        for (unsigned i = 0; i < n; i++) {
                Pair *p = &pairs[i];

                if (pipe(p->ab) < 0 || pipe(p->ba) < 0) {
                        fprintf(stderr, "churn: pipe: %s\n", strerror(errno));
                        return -errno;
                }
                p->cpu_a = cross ? (int) (i % ncpu) : -1;
                p->cpu_b = cross ? (int) ((i + 1) % ncpu) : -1;
                if (pthread_create(&p->a, NULL, pair_a, p) != 0 || pthread_create(&p->b, NULL, pair_b, p) != 0) {
                        fprintf(stderr, "churn: cannot start pair %u\n", i);
                        return -EAGAIN;
                }
        }
        return 0;
}

static void pairs_stop(Pair *pairs, unsigned n) {
        for (unsigned i = 0; i < n; i++) {
                pthread_join(pairs[i].a, NULL);
                pthread_join(pairs[i].b, NULL);
                close(pairs[i].ab[0]);
                close(pairs[i].ba[0]);
        }
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "seconds", required_argument, NULL, 's' },
                { "pairs", required_argument, NULL, 'p' },
                { "cross", no_argument, NULL, 'x' },
                { "forks", required_argument, NULL, 'f' },
                { "fork", no_argument, NULL, 'F' },
                { "threads", required_argument, NULL, 't' },
                { "progress-ms", required_argument, NULL, 'm' },
                {}
        };
        static Pair pairs[PAIRS_MAX];
        Loop forks = { .rate_per_s = 1000 }, threads = { .rate_per_s = 1000 };
        double seconds = 10, progress_ms = 0;
        unsigned n_pairs = 2;
        bool cross = false;
        int c;

        while ((c = getopt_long(argc, argv, "s:p:xf:Ft:m:", options, NULL)) >= 0) {
                switch (c) {
                case 's': seconds = atof(optarg); break;
                case 'p': n_pairs = (unsigned) atoi(optarg); break;
                case 'x': cross = true; break;
                case 'f': forks.rate_per_s = atof(optarg); break;
                case 'F': forks.real_fork = true; break;
                case 't': threads.rate_per_s = atof(optarg); break;
                case 'm': progress_ms = atof(optarg); break;
                default: return 2;
                }
        }
        if (seconds < 0 || n_pairs > PAIRS_MAX || forks.rate_per_s < 0 || forks.rate_per_s > 100000 ||
            threads.rate_per_s < 0 || threads.rate_per_s > 100000 || progress_ms < 0) {
                fprintf(stderr, "churn: bad --seconds, --pairs (<= %d), --forks, --threads or --progress-ms\n", PAIRS_MAX);
                return 2;
        }

        struct sigaction sa = { .sa_handler = on_signal };
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);

        uint64_t start = mono_ns(), end = seconds > 0 ? start + (uint64_t) (seconds * 1e9) : UINT64_MAX;
        uint64_t step_ns = progress_ms > 0 ? (uint64_t) (progress_ms * 1e6) : NSEC_PER_SEC / 10, t = start;

        printf("start %" PRIu64 "\n", start);
        fflush(stdout);
        if (pairs_start(pairs, n_pairs, cross) < 0)
                __atomic_store_n(&stop, true, __ATOMIC_RELAXED);
        if (forks.rate_per_s > 0)
                pthread_create(&forks.thread, NULL, fork_loop, &forks);
        if (threads.rate_per_s > 0)
                pthread_create(&threads.thread, NULL, thread_loop, &threads);

        while (!stopping()) {
                t = t + step_ns < end ? t + step_ns : end;
                sleep_until(t);
                if (mono_ns() >= end)
                        break;
                if (progress_ms > 0 && !stopping()) {
                        printf("progress %" PRIu64 " forks %" PRIu64 " threads %" PRIu64 " roundtrips %" PRIu64 "\n",
                               mono_ns(), counter_get(&forks.done), counter_get(&threads.done),
                               pairs_roundtrips(pairs, n_pairs));
                        fflush(stdout);
                }
        }
        __atomic_store_n(&stop, true, __ATOMIC_RELAXED);
        if (forks.rate_per_s > 0)
                pthread_join(forks.thread, NULL);
        if (threads.rate_per_s > 0)
                pthread_join(threads.thread, NULL);
        pairs_stop(pairs, n_pairs);

        uint64_t stop_ns = mono_ns();
        double secs = (double) (stop_ns - start) / 1e9;
        uint64_t rt = pairs_roundtrips(pairs, n_pairs);

        printf("end %" PRIu64 "\n", stop_ns);
        printf("churn: %.1f s, forks %" PRIu64 " (%.0f/s), threads %" PRIu64 " (%.0f/s), roundtrips %" PRIu64
               " (%.0f/s, %.0f context switches/s)\n", secs, counter_get(&forks.done), counter_get(&forks.done) / secs,
               counter_get(&threads.done), counter_get(&threads.done) / secs, rt, rt / secs, 2 * rt / secs);
        return 0;
}
