/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * storm: a fork/exit storm for the PELT oracle (tests/oracle).
 *   storm --seconds S [--rate N] [--run-ms R] [--cpu C]
 * Forks N children a second (evenly spaced on CLOCK_MONOTONIC); each child busy-waits R ms and exits, so the
 * scheduler sees a stream of new tasks (sched_wakeup_new, the initial util of a new task, fork balancing) and
 * exits (sched_process_exit, the removal of a dead task's util). The parent reaps them as it goes. --cpu pins
 * the parent (and so every child) to one CPU; by default the children go where the kernel puts them.
 * Prints "start <ns>", "end <ns>" and "children <n>".
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void sleep_until(uint64_t t_ns) {
        struct timespec ts = { .tv_sec = (time_t) (t_ns / 1000000000u), .tv_nsec = (long) (t_ns % 1000000000u) };

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

static void reap(int flags, unsigned *alive) {
        while (*alive > 0) {
                pid_t p = waitpid(-1, NULL, flags);

                if (p > 0)
                        (*alive)--;
                else if (p == 0 || errno != EINTR)
                        break;
        }
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "seconds", required_argument, NULL, 's' },
                { "rate", required_argument, NULL, 'r' },
                { "run-ms", required_argument, NULL, 'm' },
                { "cpu", required_argument, NULL, 'c' },
                {}
        };
        double seconds = 1, rate = 200, run_ms = 1;
        int cpu = -1, c;

        while ((c = getopt_long(argc, argv, "s:r:m:c:", options, NULL)) >= 0) {
                switch (c) {
                case 's': seconds = atof(optarg); break;
                case 'r': rate = atof(optarg); break;
                case 'm': run_ms = atof(optarg); break;
                case 'c': cpu = atoi(optarg); break;
                default: return 2;
                }
        }
        if (seconds <= 0 || rate <= 0 || rate > 100000 || run_ms < 0) {
                fprintf(stderr, "storm: bad --seconds, --rate or --run-ms\n");
                return 2;
        }
        if (cpu >= 0) {
                cpu_set_t set;

                CPU_ZERO(&set);
                CPU_SET(cpu, &set);
                if (sched_setaffinity(0, sizeof(set), &set) < 0) {
                        fprintf(stderr, "storm: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
                        return 1;
                }
        }

        uint64_t start = mono_ns(), end = start + (uint64_t) (seconds * 1e9);
        uint64_t gap = (uint64_t) (1e9 / rate), run = (uint64_t) (run_ms * 1e6);
        unsigned alive = 0, children = 0;

        printf("start %" PRIu64 "\n", start);
        fflush(stdout);

        for (uint64_t t = start; t < end; t += gap) {
                pid_t p;

                sleep_until(t);
                p = fork();
                if (p < 0) {
                        fprintf(stderr, "storm: fork: %s\n", strerror(errno));
                        reap(0, &alive);
                        return 1;
                }
                if (p == 0) {
                        uint64_t until = mono_ns() + run;

                        while (mono_ns() < until)
                                ;
                        _exit(0);
                }
                alive++;
                children++;
                reap(WNOHANG, &alive);
        }
        reap(0, &alive);

        printf("end %" PRIu64 "\nchildren %u\n", mono_ns(), children);
        return 0;
}
