/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq-driver.c: the drivers schedfreqd knows by name (include/topology.h), one row each.
 *
 * Sources:
 *  - setpolicy: drivers/cpufreq/intel_pstate.c (active mode) and drivers/cpufreq/amd-pstate.c
 *    (amd_pstate_epp_driver) have ->setpolicy and no ->target; their scaling_available_governors is the fixed
 *    "performance powersave" of show_scaling_available_governors() (drivers/cpufreq/cpufreq.c), and their
 *    passive modes are ordinary ->target drivers (intel_cpufreq, amd-pstate) with every governor;
 *  - remote: the drivers that set policy->dvfs_possible_from_any_cpu (cpufreq-dt.c, scmi-cpufreq.c,
 *    scpi-cpufreq.c, qcom-cpufreq-hw.c, apple-soc-cpufreq.c); per-CPU-register drivers (acpi-cpufreq,
 *    intel_cpufreq, …) do not.
 */

#include <stddef.h>
#include <string.h>

#include "macro.h"
#include "topology.h"

typedef struct DriverInfo {
        const char *name;
        bool setpolicy;
        bool remote;
        const char *userspace_hint;     /* NULL: the generic one */
} DriverInfo;

static const DriverInfo drivers[] = {
        { "intel_pstate", .setpolicy = true,
          .userspace_hint = "boot with intel_pstate=passive (or write passive to " SYSFS_CPU_DIR "/intel_pstate/status)" },
        { "amd-pstate-epp", .setpolicy = true,
          .userspace_hint = "boot with amd_pstate=passive (or write passive to " SYSFS_CPU_DIR "/amd_pstate/status)" },
        { "cpufreq-dt", .remote = true },
        { "scmi", .remote = true },
        { "scpi-cpufreq", .remote = true },
        { "qcom-cpufreq-hw", .remote = true },
        { "apple-cpufreq", .remote = true },
};

static const DriverInfo *driver_info(const char *driver) {
        for (size_t i = 0; driver && i < ELEMENTSOF(drivers); i++)
                if (streq(driver, drivers[i].name))
                        return &drivers[i];
        return NULL;
}

bool cpufreq_driver_is_setpolicy(const char *driver) {
        const DriverInfo *d = driver_info(driver);

        return d && d->setpolicy;
}

bool cpufreq_driver_allows_remote(const char *driver) {
        const DriverInfo *d = driver_info(driver);

        return d && d->remote;
}

const char *cpufreq_driver_userspace_hint(const char *driver) {
        const DriverInfo *d = driver_info(driver);

        if (d && d->userspace_hint)
                return d->userspace_hint;
        /* A ->target driver lists only registered governors; userspace may be a module not loaded yet. */
        return "load the userspace governor (modprobe cpufreq_userspace), or use a kernel built with "
               "CONFIG_CPU_FREQ_GOV_USERSPACE";
}
