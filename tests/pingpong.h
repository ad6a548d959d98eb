/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The pipe ping-pong of the perf tests and the event benchmark (tests/unit/test-perf-events.c,
 * bench/bench-events.c --quirk): a sleeper pinned to one CPU blocks in a pipe read a number of times, each time
 * woken by a waker pinned to another CPU, so that every wake-up is recorded on the waker's CPU with target_cpu
 * the sleeper's; the sleeper reports its own count of blocks (voluntary_ctxt_switches in /proc/self/status),
 * the ground truth the traced sleeps are compared with. Header-only: the two programs link nothing else of it.
 */

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

typedef struct PingPong {
        int sleeper_cpu, waker_cpu;
        unsigned rounds;
        long period_ns;                   /* the waker sleeps this long before each write */
        const char *comm;                 /* the sleeper's name (NULL: inherited) */
        void (*after)(void);              /* the sleeper runs it after the rounds, before it reports (NULL: none) */
        bool count_rounds_only;           /* report the blocks during the rounds, not since the sleeper's start */
} PingPong;

/* Pins the calling process to @cpu; a child that cannot be pinned exits 2. */
static inline void pingpong_pin(int cpu) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set) < 0)
                _exit(2);
}

/* The calling process's count of the times it blocked. */
static inline unsigned pingpong_voluntary_switches(void) {
        FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        unsigned n = 0;

        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "voluntary_ctxt_switches: %u", &n) == 1)
                        break;
        if (f)
                fclose(f);
        return n;
}

/* A SCHED_IDLE busy loop pinned to @cpu, keeping it out of its idle context (the caller kills it). */
static inline pid_t pingpong_fork_spinner(int cpu) {
        pid_t pid = fork();

        if (pid != 0)
                return pid;
        pingpong_pin(cpu);
        if (sched_setscheduler(0, SCHED_IDLE, &(struct sched_param) {}) < 0)
                _exit(2);
        for (;;)
                ;
}

/*
 * Forks the sleeper (ret[0]) and the waker (ret[1]). The sleeper's count of blocks (an unsigned) arrives on the
 * pipe fd *ret_result once it is done; each child exits 0, or 3 when a pipe broke.
 */
static inline void pingpong_fork(const PingPong *pp, pid_t ret[2], int *ret_result) {
        int data[2], ack[2], result[2];
        char c = 0;

        if (pipe(data) < 0 || pipe(ack) < 0 || pipe(result) < 0)
                abort();
        if ((ret[0] = fork()) == 0) {
                unsigned before = 0, n = 0;

                if (pp->comm)
                        (void) prctl(PR_SET_NAME, pp->comm);
                pingpong_pin(pp->sleeper_cpu);
                if (pp->count_rounds_only)
                        before = pingpong_voluntary_switches();
                for (unsigned i = 0; i < pp->rounds; i++)
                        if (read(data[0], &c, 1) != 1 || write(ack[1], &c, 1) != 1)
                                _exit(3);
                if (pp->count_rounds_only)
                        n = pingpong_voluntary_switches() - before;
                if (pp->after)
                        pp->after();
                if (!pp->count_rounds_only)
                        n = pingpong_voluntary_switches();
                _exit(write(result[1], &n, sizeof(n)) == sizeof(n) ? 0 : 3);
        }
        if ((ret[1] = fork()) == 0) {
                pingpong_pin(pp->waker_cpu);
                for (unsigned i = 0; i < pp->rounds; i++) {
                        (void) nanosleep(&(struct timespec) { .tv_nsec = pp->period_ns }, NULL);
                        if (write(data[1], &c, 1) != 1 || read(ack[0], &c, 1) != 1)
                                _exit(3);
                }
                _exit(0);
        }
        close(data[0]), close(data[1]), close(ack[0]), close(ack[1]), close(result[1]);
        *ret_result = result[0];
}
