/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for cpufreq-driver.c: the driver table. */

#include <string.h>

#include "test.h"
#include "topology.h"

DEFINE_TEST_MAIN;

TEST(setpolicy) {
        ASSERT_TRUE(cpufreq_driver_is_setpolicy("intel_pstate"));
        ASSERT_TRUE(cpufreq_driver_is_setpolicy("amd-pstate-epp"));
        /* their passive modes are ->target drivers */
        ASSERT_TRUE(!cpufreq_driver_is_setpolicy("intel_cpufreq"));
        ASSERT_TRUE(!cpufreq_driver_is_setpolicy("amd-pstate"));
        ASSERT_TRUE(!cpufreq_driver_is_setpolicy("acpi-cpufreq"));
        ASSERT_TRUE(!cpufreq_driver_is_setpolicy(NULL));
}

TEST(remote) {
        ASSERT_TRUE(cpufreq_driver_allows_remote("cpufreq-dt"));
        ASSERT_TRUE(cpufreq_driver_allows_remote("scmi"));
        ASSERT_TRUE(cpufreq_driver_allows_remote("qcom-cpufreq-hw"));
        ASSERT_TRUE(!cpufreq_driver_allows_remote("acpi-cpufreq"));
        ASSERT_TRUE(!cpufreq_driver_allows_remote("intel_cpufreq"));
        ASSERT_TRUE(!cpufreq_driver_allows_remote("intel_pstate"));
        ASSERT_TRUE(!cpufreq_driver_allows_remote(""));
        ASSERT_TRUE(!cpufreq_driver_allows_remote(NULL));
}

TEST(userspace_hint) {
        ASSERT_TRUE(strstr(cpufreq_driver_userspace_hint("intel_pstate"), "intel_pstate=passive"));
        ASSERT_TRUE(strstr(cpufreq_driver_userspace_hint("amd-pstate-epp"), "amd_pstate=passive"));
        ASSERT_TRUE(strstr(cpufreq_driver_userspace_hint("acpi-cpufreq"), "modprobe cpufreq_userspace"));
        ASSERT_TRUE(strstr(cpufreq_driver_userspace_hint("amd-pstate"), "modprobe cpufreq_userspace"));
        ASSERT_TRUE(strstr(cpufreq_driver_userspace_hint(NULL), "modprobe cpufreq_userspace"));
}
