/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-privileges.c: what the daemon cannot run without, checked before anything is opened. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel-version.h"
#include "log.h"
#include "macro.h"
#include "manager-privileges.h"

/* Whether our effective set holds @cap (capget(2); false when it cannot be read). */
static bool have_capability(unsigned cap) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

        if (cap >= 32 * _LINUX_CAPABILITY_U32S_3 || syscall(SYS_capget, &header, data) < 0)
                return false;
        return data[cap / 32].effective & (UINT32_C(1) << (cap % 32));
}

/* Tracepoints on every CPU take CAP_PERFMON since 5.8, CAP_SYS_ADMIN before (perfmon_capable(), include/linux/capability.h). */
const char *manager_perf_capability(void) {
        unsigned version;

        if (kernel_version_running(&version) >= 0 && version < KERNEL_VERSION_CODE(5, 8))
                return "CAP_SYS_ADMIN";
        return "CAP_PERFMON";
}

/* kernel.perf_event_paranoid = -1 opens them to everyone (perf_allow_cpu(), perf_allow_tracepoint()). */
static bool perf_open_to_everyone(void) {
        _cleanup_fclose_ FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
        int level;

        return f && fscanf(f, "%d", &level) == 1 && level < 0;
}

/*
 * What the daemon cannot run without, checked before anything is opened, so that a start without it is one line
 * saying what is missing rather than the first of the failures it would meet (the lock in /run, then tracefs):
 * writing the cpufreq files (root's, 0644: uid 0, or CAP_DAC_OVERRIDE) and opening the scheduler tracepoints
 * on every CPU (CAP_PERFMON). The unit's other capabilities are optional: CAP_NET_ADMIN for the proc connector
 * (task names; without it a notice) and CAP_SYS_NICE for SCHED_FIFO (a warning); the bus name is the bus
 * policy's to grant (root), and the daemon governs without it.
 */
int manager_check_privileges(bool observe) {
        bool sysfs = observe || geteuid() == 0 || have_capability(CAP_DAC_OVERRIDE); /* observing writes nothing */
        bool perf = have_capability(CAP_PERFMON) || have_capability(CAP_SYS_ADMIN) || perf_open_to_everyone();
        const char *cap = manager_perf_capability();

        if (!sysfs)
                return log_error_errno(SYNTHETIC_ERRNO(EPERM), "Not running as root (uid %u): schedfreqd writes the "
                                       "cpufreq files in /sys (root's)%s%s%s; run it with sudo, or as the schedfreqd "
                                       "service.", (unsigned) geteuid(), perf ? "" : " and needs ",
                                       perf ? "" : cap, perf ? "" : " for the scheduler tracepoints");
        if (!perf)
                return log_error_errno(SYNTHETIC_ERRNO(EPERM), "Missing %s: schedfreqd opens the scheduler "
                                       "tracepoints on every CPU, which takes it; run it with sudo, or as the "
                                       "schedfreqd service (its unit grants it).", cap);
        return 0;
}
