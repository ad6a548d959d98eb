/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for daemon/topology/topology-json.c (`schedfreqd topology --json`): every key of the INI, under the same
 * names, optional ones left out as the INI writer leaves them out, strings escaped. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "test.h"
#include "topology.h"

/* Parses @ini and returns its JSON (malloc'd), or NULL. */
static char *json_of(const char *ini) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_fclose_ FILE *in = NULL;
        char *text = NULL;
        size_t size = 0;
        FILE *out;

        in = fmemopen((void *) ini, strlen(ini), "r");
        if (!in || topology_parse_file(in, "t.ini", &t, NULL) < 0)
                return NULL;
        out = open_memstream(&text, &size);
        if (!out)
                return NULL;
        if (topology_write_json(out, t) < 0) {
                fclose(out);
                free(text);
                return NULL;
        }
        fclose(out);
        return text;
}

TEST(every_key) {
        _cleanup_free_ char *json = json_of("[system]\nonline = 0-2\npossible = 0-3\n"
                                            "[policy0]\ncpus = 0-1\ndriver = cpufreq-dt\ncpuinfo_min_khz = 500000\n"
                                            "cpuinfo_max_khz = 2000000\nscaling_min_khz = 600000\n"
                                            "scaling_max_khz = 1500000\nfrequencies_khz = 500000 1000000 2000000\n"
                                            "capacity = 512\ntransition_latency_ns = 100000\ngovernor = schedutil\n"
                                            "governors = userspace schedutil\ncur_khz = 1000000\n"
                                            "rate_limit_us = 2000\n"
                                            "[policy2]\ncpus = 2-3\ndriver = intel_cpufreq\ncpuinfo_min_khz = 800000\n"
                                            "cpuinfo_max_khz = 3000000\n");

        ASSERT_TRUE(json);
        ASSERT_STREQ(json, "{\n"
                           "  \"system\": {\n"
                           "    \"online\": \"0-2\",\n"
                           "    \"possible\": \"0-3\"\n"
                           "  },\n"
                           "  \"policy0\": {\n"
                           "    \"cpus\": \"0-1\",\n"
                           "    \"driver\": \"cpufreq-dt\",\n"
                           "    \"cpuinfo_min_khz\": 500000,\n"
                           "    \"cpuinfo_max_khz\": 2000000,\n"
                           "    \"scaling_min_khz\": 600000,\n"
                           "    \"scaling_max_khz\": 1500000,\n"
                           "    \"frequencies_khz\": [500000, 1000000, 2000000],\n"
                           "    \"capacity\": 512,\n"
                           "    \"transition_latency_ns\": 100000,\n"
                           "    \"governor\": \"schedutil\",\n"
                           "    \"governors\": [\"userspace\", \"schedutil\"],\n"
                           "    \"cur_khz\": 1000000,\n"
                           "    \"rate_limit_us\": 2000\n"
                           "  },\n"
                           "  \"policy2\": {\n"
                           "    \"cpus\": \"2-3\",\n"
                           "    \"driver\": \"intel_cpufreq\",\n"
                           "    \"cpuinfo_min_khz\": 800000,\n"
                           "    \"cpuinfo_max_khz\": 3000000,\n"
                           "    \"scaling_min_khz\": 800000,\n"
                           "    \"scaling_max_khz\": 3000000,\n"
                           "    \"transition_latency_ns\": 1000000\n"
                           "  }\n"
                           "}\n");
}

/* A machine without cpufreq: the system section alone. */
TEST(system_only) {
        _cleanup_free_ char *json = json_of("[system]\nonline = 0\npossible = 0-1\n");

        ASSERT_TRUE(json);
        ASSERT_STREQ(json, "{\n  \"system\": {\n    \"online\": \"0\",\n    \"possible\": \"0-1\"\n  }\n}\n");
}

/* [system] autogroup = yes as a JSON boolean; absent (no) left out, as the INI writer leaves it out. */
TEST(autogroup) {
        _cleanup_free_ char *json = json_of("[system]\nonline = 0\npossible = 0\nautogroup = yes\n");

        ASSERT_TRUE(json);
        ASSERT_STREQ(json, "{\n  \"system\": {\n    \"online\": \"0\",\n    \"possible\": \"0\",\n"
                           "    \"autogroup\": true\n  }\n}\n");
}

/* [system] delayed_dequeue = no as false; the default (yes) left out, as the INI writer leaves it out. */
TEST(delayed_dequeue) {
        _cleanup_free_ char *json = json_of("[system]\nonline = 0\npossible = 0\ndelayed_dequeue = no\n");

        ASSERT_TRUE(json);
        ASSERT_STREQ(json, "{\n  \"system\": {\n    \"online\": \"0\",\n    \"possible\": \"0\",\n"
                           "    \"delayed_dequeue\": false\n  }\n}\n");
}

/* A driver name that is not UTF-8 (sysfs promises nothing): still valid JSON, the byte as U+FFFD. */
TEST(driver_not_utf8) {
        _cleanup_free_ char *json = json_of("[policy0]\ncpus = 0\ndriver = dt\xff\ncpuinfo_min_khz = 1\n"
                                            "cpuinfo_max_khz = 2\n");

        ASSERT_TRUE(json);
        ASSERT_TRUE(strstr(json, "\"driver\": \"dt\\ufffd\",\n"));
}

TEST(driver_escaped) {
        _cleanup_free_ char *json = json_of("[policy0]\ncpus = 0\ndriver = a\"b\\c\ncpuinfo_min_khz = 1\n"
                                            "cpuinfo_max_khz = 2\n");

        ASSERT_TRUE(json);
        ASSERT_TRUE(strstr(json, "\"driver\": \"a\\\"b\\\\c\",\n"));
}

TEST(null_arguments) {
        ASSERT_ERROR(topology_write_json(NULL, NULL), EINVAL);
}

DEFINE_TEST_MAIN
