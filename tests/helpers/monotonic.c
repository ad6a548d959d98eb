/* SPDX-License-Identifier: GPL-2.0-or-later */
/* monotonic: prints CLOCK_MONOTONIC in ns (the clock of perf samples and of the emulator's write log). */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

int main(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        printf("%" PRIu64 "\n", (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec);
        return 0;
}
