/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * migrator: a busy task that moves between two CPUs, for the PELT oracle (tests/oracle).
 *   migrator --seconds S [--interval-ms I] [--cpus A,B] [--duty PCT] [--period-ms P]
 * Busy-waits on CLOCK_MONOTONIC (100 % by default; PCT % of every P ms period with --duty) and every I ms
 * (default 100) re-pins itself with sched_setaffinity to the other CPU of A,B (default 0,1): the kernel migrates
 * it while it runs (sched_migrate_task from the stopper), so its util leaves one cfs_rq and joins the other.
 * Prints "start <ns>", "end <ns>" and "migrations <n>".
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

static void sleep_until(uint64_t t_ns) {
        struct timespec ts = { .tv_sec = (time_t) (t_ns / 1000000000u), .tv_nsec = (long) (t_ns % 1000000000u) };

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

static int pin(int cpu) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set) < 0) {
                fprintf(stderr, "migrator: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
                return -1;
        }
        return 0;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "seconds", required_argument, NULL, 's' },
                { "interval-ms", required_argument, NULL, 'i' },
                { "cpus", required_argument, NULL, 'c' },
                { "duty", required_argument, NULL, 'd' },
                { "period-ms", required_argument, NULL, 'p' },
                {}
        };
        double seconds = 1, interval_ms = 100, duty = 100, period_ms = 16;
        int cpus[2] = { 0, 1 }, c;

        while ((c = getopt_long(argc, argv, "s:i:c:d:p:", options, NULL)) >= 0) {
                switch (c) {
                case 's': seconds = atof(optarg); break;
                case 'i': interval_ms = atof(optarg); break;
                case 'c':
                        if (sscanf(optarg, "%d,%d", &cpus[0], &cpus[1]) != 2 || cpus[0] < 0 || cpus[1] < 0) {
                                fprintf(stderr, "migrator: --cpus wants A,B\n");
                                return 2;
                        }
                        break;
                case 'd': duty = atof(optarg); break;
                case 'p': period_ms = atof(optarg); break;
                default: return 2;
                }
        }
        if (seconds <= 0 || interval_ms <= 0 || duty <= 0 || duty > 100 || period_ms <= 0) {
                fprintf(stderr, "migrator: bad --seconds, --interval-ms, --duty or --period-ms\n");
                return 2;
        }

        int which = 0;
        unsigned migrations = 0;
        if (pin(cpus[which]) < 0)
                return 1;

        uint64_t start = mono_ns(), end = start + (uint64_t) (seconds * 1e9);
        uint64_t interval = (uint64_t) (interval_ms * 1e6), next_move = start + interval;
        uint64_t period = (uint64_t) (period_ms * 1e6), busy = (uint64_t) ((double) period * duty / 100);

        printf("start %" PRIu64 "\n", start);
        fflush(stdout);

        for (uint64_t t = start; t < end; t += period) {
                uint64_t busy_end = t + busy < end ? t + busy : end;
                uint64_t now;

                while ((now = mono_ns()) < busy_end) {
                        if (now >= next_move) {
                                which ^= 1;
                                if (pin(cpus[which]) < 0)
                                        return 1;
                                migrations++;
                                next_move += interval;
                        }
                }
                if (busy < period && t + period < end)
                        sleep_until(t + period);
        }

        printf("end %" PRIu64 "\nmigrations %u\n", mono_ns(), migrations);
        return 0;
}
