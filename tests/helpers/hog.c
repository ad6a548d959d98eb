/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hog: a real CPU load for integration tests and demos.
 *   hog --cpu N --seconds S [--duty PCT] [--period-ms P] [--fifo PRIO]
 * Pins itself to CPU N, then busy-loops (or runs PCT % of every P ms period, sleeping the rest) for S seconds.
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

static uint64_t mono_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
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

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "cpu", required_argument, NULL, 'c' },
                { "seconds", required_argument, NULL, 's' },
                { "duty", required_argument, NULL, 'd' },
                { "period-ms", required_argument, NULL, 'p' },
                { "fifo", required_argument, NULL, 'f' },
                {}
        };
        double seconds = 1, duty = 100, period_ms = 10;
        int cpu = -1, fifo = 0, c;

        while ((c = getopt_long(argc, argv, "c:s:d:p:f:", options, NULL)) >= 0) {
                switch (c) {
                case 'c': cpu = atoi(optarg); break;
                case 's': seconds = atof(optarg); break;
                case 'd': duty = atof(optarg); break;
                case 'p': period_ms = atof(optarg); break;
                case 'f': fifo = atoi(optarg); break;
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
        uint64_t period = (uint64_t) (period_ms * 1e6), busy = (uint64_t) (period * duty / 100);

        printf("start %" PRIu64 "\n", start);
        fflush(stdout);

        for (uint64_t t = start; t < end; t += period) {
                spin_until(t + busy < end ? t + busy : end);
                if (busy < period && t + period < end)
                        sleep_until(t + period);
        }

        printf("end %" PRIu64 "\n", mono_ns());
        return 0;
}
