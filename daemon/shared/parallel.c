/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parallel.c: a parallel for over independent blocking calls (include/parallel.h).
 *
 * Why threads at all, in a daemon that is otherwise one event loop: cpufreq discovery reads ~30 sysfs
 * attributes a policy; on sysfs each is a few µs, but a read can wait (a policy's rwsem held by a governor
 * change, a driver's get() sending an IPI to the policy's CPU), and where sysfs is served by a process (the
 * FUSE emulator the tests run on) each is a round trip to it: 256 policies, one after the other, were ~7,000
 * round trips of 20-50 µs on a 2-vCPU VM. Reading several policies at once overlaps the waits. The threads live
 * for that call only, before the event loop exists.
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "macro.h"
#include "parallel.h"

#define PARALLEL_THREADS_MAX 16u

typedef struct ParallelJob {
        atomic_size_t next;
        size_t n;
        ParallelFn fn;
        void *userdata;
} ParallelJob;

static void job_run(ParallelJob *job) {
        for (;;) {
                size_t i = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);

                if (i >= job->n)
                        return;
                job->fn(i, job->userdata);
        }
}

static void *job_thread(void *arg) {
        job_run(arg);
        return NULL;
}

/* Starts up to @want threads on @job (every signal blocked in them); returns how many started. */
static unsigned job_start_threads(ParallelJob *job, pthread_t *threads, unsigned want) {
        sigset_t all, saved;
        pthread_attr_t attr;
        unsigned started = 0;

        if (pthread_attr_init(&attr) != 0)
                return 0;
        (void) pthread_attr_setstacksize(&attr, PARALLEL_STACK_SIZE);
        sigfillset(&all);
        /* A new thread inherits the mask of the one that makes it. */
        if (pthread_sigmask(SIG_SETMASK, &all, &saved) == 0) {
                while (started < want && pthread_create(&threads[started], &attr, job_thread, job) == 0)
                        started++;
                (void) pthread_sigmask(SIG_SETMASK, &saved, NULL);
        }
        (void) pthread_attr_destroy(&attr);
        return started;
}

/* How many threads to make besides the caller's: one fewer than wanted, at most one an index after the first. */
static unsigned extra_threads(size_t n, unsigned max_threads) {
        size_t wanted = MIN(max_threads, PARALLEL_THREADS_MAX);

        /* cppcheck 2.10 calls this always true; it is not (false for the callers' 8 threads and n >= 2). */
        // cppcheck-suppress knownConditionTrueFalse ; REASON: see above
        if (wanted < 2 || n < 2)
                return 0;
        return (unsigned) MIN(wanted - 1, n - 1);
}

unsigned parallel_for(size_t n, unsigned max_threads, ParallelFn fn, void *userdata) {
        pthread_t threads[PARALLEL_THREADS_MAX];
        ParallelJob job = { .n = n, .fn = fn, .userdata = userdata };
        unsigned want = extra_threads(n, max_threads), started = 0;

        atomic_init(&job.next, 0);
        if (want > 0)
                started = job_start_threads(&job, threads, want);
        job_run(&job);
        for (unsigned k = 0; k < started; k++)
                (void) pthread_join(threads[k], NULL);
        return started + 1;
}
