/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hog: a real CPU load for integration tests and demos.
 *   hog --cpu N --seconds S [--duty PCT | --steps PCT,PCT,...] [--period-ms P] [--fifo PRIO]
 * Pins itself to CPU N, then busy-loops (or runs PCT % of every P ms period, sleeping the rest) for S seconds.
 * --steps changes the duty cycle in equal parts of S, in one process (the oracle's phase-change workload:
 * 20,50,80,100,0,40); a step of 0 sleeps through its part.
 * With --fifo it first switches itself to SCHED_FIFO at priority PRIO, so that its load shows up in the rq's
 * avg_rt instead of the cfs_rq (the PELT oracle's RT workload, tests/oracle).
 * Prints "start <CLOCK_MONOTONIC ns>" when the load begins and "end <ns>" when it stops, so tests can relate
 * the load to the emulator's write log without sleeping.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STEPS_MAX 16

static uint64_t mono_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void spin_until(uint64_t t_ns) {
        while (mono_ns() < t_ns)
                ;
}

/* "20,50,80" → duties; the count, or -1 when a value is not 0..100 or there are too many. */
static int parse_steps(const char *s, double *ret) {
        int n = 0;

        for (;;) {
                char *end;
                double v = strtod(s, &end);

                if (end == s || v < 0 || v > 100 || n == STEPS_MAX)
                        return -1;
                ret[n++] = v;
                if (*end == '\0')
                        return n;
                if (*end != ',')
                        return -1;
                s = end + 1;
        }
}

static void sleep_until(uint64_t t_ns) {
        struct timespec ts = { .tv_sec = (time_t) (t_ns / 1000000000u), .tv_nsec = (long) (t_ns % 1000000000u) };

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "cpu", required_argument, NULL, 'c' },
                { "seconds", required_argument, NULL, 's' },
                { "duty", required_argument, NULL, 'd' },
                { "period-ms", required_argument, NULL, 'p' },
                { "fifo", required_argument, NULL, 'f' },
                { "steps", required_argument, NULL, 'S' },
                {}
        };
        double seconds = 1, duty = 100, period_ms = 10, steps[STEPS_MAX];
        int cpu = -1, fifo = 0, n_steps = 0, c;

        while ((c = getopt_long(argc, argv, "c:s:d:p:f:S:", options, NULL)) >= 0) {
                switch (c) {
                case 'c': cpu = atoi(optarg); break;
                case 's': seconds = atof(optarg); break;
                case 'd': duty = atof(optarg); break;
                case 'p': period_ms = atof(optarg); break;
                case 'f': fifo = atoi(optarg); break;
                case 'S':
                        n_steps = parse_steps(optarg, steps);
                        if (n_steps < 0) {
                                fprintf(stderr, "hog: bad --steps (up to %d duties of 0-100, comma separated)\n",
                                        STEPS_MAX);
                                return 2;
                        }
                        break;
                default: return 2;
                }
        }
        if (duty <= 0 || duty > 100 || period_ms <= 0 || seconds <= 0 || fifo < 0 || fifo > 99) {
                fprintf(stderr, "hog: bad --duty, --period-ms, --seconds or --fifo\n");
                return 2;
        }

        if (cpu >= 0) {
                cpu_set_t set;

                CPU_ZERO(&set);
                CPU_SET(cpu, &set);
                if (sched_setaffinity(0, sizeof(set), &set) < 0) {
                        fprintf(stderr, "hog: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
                        return 1;
                }
        }
        if (fifo > 0) {
                struct sched_param sp = { .sched_priority = fifo };

                if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
                        fprintf(stderr, "hog: cannot switch to SCHED_FIFO %d: %s\n", fifo, strerror(errno));
                        return 1;
                }
        }

        uint64_t start = mono_ns(), end = start + (uint64_t) (seconds * 1e9);
        uint64_t period = (uint64_t) (period_ms * 1e6);

        if (n_steps == 0)
                steps[n_steps++] = duty;
        printf("start %" PRIu64 "\n", start);
        fflush(stdout);

        for (int i = 0; i < n_steps; i++) {
                uint64_t from = start + (end - start) * (uint64_t) i / (uint64_t) n_steps;
                uint64_t to = start + (end - start) * (uint64_t) (i + 1) / (uint64_t) n_steps;
                uint64_t busy = (uint64_t) ((double) period * steps[i] / 100);

                if (n_steps > 1)
                        printf("step %d %g %" PRIu64 "\n", i, steps[i], mono_ns());
                fflush(stdout);
                for (uint64_t t = from; t < to; t += period) {
                        if (busy > 0)
                                spin_until(t + busy < to ? t + busy : to);
                        if (busy < period)
                                sleep_until(t + period < to ? t + period : to);
                }
        }

        printf("end %" PRIu64 "\n", mono_ns());
        return 0;
}
