/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

/* The capability the scheduler tracepoints on every CPU take on this kernel: "CAP_PERFMON" (5.8+) or
 * "CAP_SYS_ADMIN". */
const char *manager_perf_capability(void);
/*
 * One error line saying what is missing (and suggesting sudo or the service) unless the daemon can write the
 * cpufreq files (not needed with @observe) and open the tracepoints: 0, or -EPERM (logged).
 */
int manager_check_privileges(bool observe);
