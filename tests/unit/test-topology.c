/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for daemon/topology/topology.c: INI parse, validation errors, write round-trip, frequency resolution, and
 * odd inputs (a directory, an empty file, NUL bytes, endless lines), whose errors must all name the file. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpulist.h"
#include "macro.h"
#include "test.h"
#include "topology.h"

static int parse_text(const char *text, Topology **ret, char **ret_error) {
        _cleanup_fclose_ FILE *f = NULL;

        f = fmemopen((void *) text, strlen(text), "r");
        if (!f)
                return -errno;
        return topology_parse_file(f, "t.ini", ret, ret_error);
}

/* Parses @text, which must fail with exactly @expected as the message. Returns true when it does. */
static bool parse_fails_with(const char *text, const char *expected) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        int r;

        r = parse_text(text, &t, &error);
        if (r != -EINVAL || !error || !streq(error, expected)) {
                fprintf(stderr, "# input:\n%s# expected error \"%s\", got r=%d \"%s\"\n", text, expected, r,
                        error ?: "(none)");
                return false;
        }
        return !t;
}

static bool policy_equal(const PolicyDesc *a, const PolicyDesc *b) {
        return a->id == b->id && CPU_EQUAL(&a->cpus, &b->cpus) && streq(a->driver, b->driver) &&
                a->cpuinfo_min_khz == b->cpuinfo_min_khz && a->cpuinfo_max_khz == b->cpuinfo_max_khz &&
                a->scaling_min_khz == b->scaling_min_khz && a->scaling_max_khz == b->scaling_max_khz &&
                a->n_frequencies == b->n_frequencies &&
                (a->n_frequencies == 0 ||
                 memcmp(a->frequencies_khz, b->frequencies_khz, a->n_frequencies * sizeof(uint32_t)) == 0) &&
                !!a->frequencies_khz == !!b->frequencies_khz && a->capacity == b->capacity &&
                a->transition_latency_ns == b->transition_latency_ns && streq(a->governor, b->governor) &&
                streq(a->governors, b->governors) && a->cur_khz == b->cur_khz &&
                a->n_inefficient == b->n_inefficient && !!a->inefficient_khz == !!b->inefficient_khz &&
                (a->n_inefficient == 0 ||
                 memcmp(a->inefficient_khz, b->inefficient_khz, a->n_inefficient * sizeof(uint32_t)) == 0);
}

static bool topology_equal(const Topology *a, const Topology *b) {
        if (a->n_policies != b->n_policies || !CPU_EQUAL(&a->online, &b->online) ||
            !CPU_EQUAL(&a->possible, &b->possible))
                return false;
        for (size_t i = 0; i < a->n_policies; i++)
                if (!policy_equal(&a->policies[i], &b->policies[i]))
                        return false;
        return true;
}

/* write → parse gives the same topology, and writing that again gives the same text. */
static bool roundtrips(const Topology *t) {
        _cleanup_(topology_freep) Topology *back = NULL;
        _cleanup_free_ char *text = NULL, *text2 = NULL, *error = NULL;

        text = topology_to_string(t);
        if (!text || parse_text(text, &back, &error) < 0) {
                fprintf(stderr, "# re-parse failed: %s\n", error ?: "?");
                return false;
        }
        text2 = topology_to_string(back);
        return topology_equal(t, back) && text2 && streq(text, text2);
}

TEST(fixture_two_policies) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        const PolicyDesc *p;

        ASSERT_OK(topology_load(FIXTURES "/topology/two-policies.ini", &t, &error));
        ASSERT_EQ(t->n_policies, 2);
        ASSERT_EQ(CPU_COUNT(&t->online), 2);
        ASSERT_EQ(CPU_COUNT(&t->possible), 2);

        p = topology_policy_of_cpu(t, 1);
        ASSERT_TRUE(p);
        ASSERT_EQ(p->id, 1);
        ASSERT_STREQ(p->driver, "acpi-cpufreq");
        ASSERT_EQ(p->n_frequencies, 5);
        ASSERT_EQ(p->frequencies_khz[0], 800000);
        ASSERT_EQ(p->frequencies_khz[4], 2400000);
        ASSERT_EQ(p->cpuinfo_min_khz, 800000);
        ASSERT_EQ(p->scaling_min_khz, 800000);   /* default: cpuinfo_min_khz */
        ASSERT_EQ(p->scaling_max_khz, 2400000);  /* default: cpuinfo_max_khz */
        ASSERT_U64_EQ(p->transition_latency_ns, 10000);
        ASSERT_STREQ(p->governor, "schedutil");
        ASSERT_STREQ(p->governors, "");          /* unknown: consumers use topology_default_governors() */
        ASSERT_EQ(p->capacity, 0);
        ASSERT_EQ(p->cur_khz, 0);
        ASSERT_TRUE(!topology_policy_of_cpu(t, 2));
        ASSERT_TRUE(!topology_policy_of_cpu(t, 5000));
        ASSERT_TRUE(roundtrips(t));
}

TEST(fixtures_all_load_and_roundtrip) {
        static const char *const names[] = { "two-policies", "shared-dt", "intel_pstate", "continuous" };

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_(topology_freep) Topology *t = NULL;
                _cleanup_free_ char *error = NULL, *path = NULL;

                ASSERT_TRUE(asprintf(&path, "%s/topology/%s.ini", FIXTURES, names[i]) > 0);
                if (topology_load(path, &t, &error) < 0)
                        TEST_FAIL("%s: %s", path, error ?: "?");
                ASSERT_TRUE(roundtrips(t));
        }
}

TEST(fixture_shared_dt) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        const PolicyDesc *p;

        ASSERT_OK(topology_load(FIXTURES "/topology/shared-dt.ini", &t, &error));
        ASSERT_EQ(t->n_policies, 2);
        p = topology_policy_of_cpu(t, 3);
        ASSERT_TRUE(p);
        ASSERT_EQ(p->id, 2);
        ASSERT_EQ(CPU_COUNT(&p->cpus), 2);
        ASSERT_EQ(p->capacity, 1024);
        ASSERT_EQ(topology_policy_of_cpu(t, 1)->capacity, 446);
        ASSERT_EQ(topology_policy_of_cpu(t, 1)->id, 0);
}

/* schedutil's rate_limit_us: optional, only with governor = schedutil, 0 valid, written back as read. */
TEST(rate_limit_key) {
        static const char *const text =
                "[policy0]\ncpus = 0\ndriver = acpi-cpufreq\nfrequencies_khz = 500000 2000000\n"
                "governor = schedutil\nrate_limit_us = 7777\n"
                "[policy1]\ncpus = 1\ndriver = acpi-cpufreq\nfrequencies_khz = 500000 2000000\n"
                "governor = schedutil\nrate_limit_us = 0\n"
                "[policy2]\ncpus = 2\ndriver = acpi-cpufreq\nfrequencies_khz = 500000 2000000\n"
                "governor = schedutil\n";
        _cleanup_(topology_freep) Topology *t = NULL, *again = NULL;
        _cleanup_free_ char *error = NULL, *out = NULL;
        _cleanup_fclose_ FILE *in = NULL;
        size_t size = 0;
        FILE *f;

        ASSERT_OK(parse_text(text, &t, &error));
        ASSERT_EQ(t->n_policies, 3);
        ASSERT_TRUE(t->policies[0].has_rate_limit);
        ASSERT_EQ(t->policies[0].rate_limit_us, 7777);
        ASSERT_TRUE(t->policies[1].has_rate_limit);
        ASSERT_EQ(t->policies[1].rate_limit_us, 0);
        ASSERT_TRUE(!t->policies[2].has_rate_limit);

        f = open_memstream(&out, &size);
        ASSERT_TRUE(f);
        ASSERT_OK(topology_write(f, t));
        fclose(f);
        ASSERT_TRUE(strstr(out, "governor = schedutil\ngovernors = conservative ondemand userspace powersave "
                                "performance schedutil\nrate_limit_us = 7777\n") ||
                    strstr(out, "governor = schedutil\nrate_limit_us = 7777\n"));
        ASSERT_TRUE(strstr(out, "rate_limit_us = 0\n"));
        in = fmemopen(out, strlen(out), "r");
        ASSERT_TRUE(in);
        ASSERT_OK(topology_parse_file(in, "again", &again, NULL));
        ASSERT_EQ(again->policies[0].rate_limit_us, 7777);
        ASSERT_TRUE(again->policies[1].has_rate_limit && !again->policies[2].has_rate_limit);

        ASSERT_TRUE(parse_fails_with("[policy0]\ncpus = 0\ndriver = d\nfrequencies_khz = 1\ngovernor = ondemand\n"
                                     "rate_limit_us = 10\n",
                                     "t.ini:6: rate_limit_us is schedutil's tunable: it needs governor = schedutil"));
        ASSERT_TRUE(parse_fails_with("[policy0]\ncpus = 0\ndriver = d\nfrequencies_khz = 1\nrate_limit_us = 10\n",
                                     "t.ini:5: rate_limit_us is schedutil's tunable: it needs governor = schedutil"));
        ASSERT_TRUE(parse_fails_with("[policy0]\nrate_limit_us = 4294967296\n",
                                     "t.ini:2: rate_limit_us: \"4294967296\" is not a number in 0..4294967295"));
        ASSERT_TRUE(parse_fails_with("[policy0]\nrate_limit_us = 2ms\n",
                                     "t.ini:2: rate_limit_us: \"2ms\" is not a number in 0..4294967295"));
}

TEST(load_missing_file) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;

        ASSERT_ERROR(topology_load("/nonexistent/x.ini", &t, &error), ENOENT);
        ASSERT_STREQ(error, "/nonexistent/x.ini: No such file or directory");
        ASSERT_TRUE(!t);
}

/* Parses @size bytes of @data, which may hold NUL bytes. */
static int parse_bytes(const char *data, size_t size, Topology **ret, char **ret_error) {
        _cleanup_fclose_ FILE *f = NULL;

        f = fmemopen((void *) data, size, "r");
        if (!f)
                return -errno;
        return topology_parse_file(f, "t.ini", ret, ret_error);
}

/* Must fail with @err and exactly @expected. */
static bool parse_bytes_fails_with(const char *data, size_t size, int err, const char *expected) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        int r;

        r = parse_bytes(data, size, &t, &error);
        if (r != -err || !error || !streq(error, expected)) {
                fprintf(stderr, "# expected %d \"%s\", got r=%d \"%s\"\n", -err, expected, r, error ?: "(none)");
                return false;
        }
        return !t;
}

TEST(load_directory) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;

        /* Was a bare "Input/output error" (fopen() opens a directory, the first read fails). */
        ASSERT_ERROR(topology_load(FIXTURES "/topology", &t, &error), EISDIR);
        ASSERT_STREQ(error, FIXTURES "/topology: Is a directory");
        ASSERT_TRUE(!t);
}

TEST(read_error_names_file_and_line) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        _cleanup_fclose_ FILE *f = NULL;

        /* A stream whose read fails (here: a directory) gives its errno and a message, not a bare -EIO. */
        f = fopen(FIXTURES "/topology", "re");
        ASSERT_TRUE(f);
        ASSERT_ERROR(topology_parse_file(f, "dir.ini", &t, &error), EISDIR);
        ASSERT_STREQ(error, "dir.ini:1: read error: Is a directory");
        ASSERT_TRUE(!t);
}

TEST(load_empty_file) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;

        ASSERT_ERROR(topology_load("/dev/null", &t, &error), EINVAL);
        ASSERT_STREQ(error, "/dev/null: no [system] or [policyN] section (an empty file?)");
        ASSERT_TRUE(!t);
}

TEST(load_unreadable_file) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL, *expected = NULL;
        char path[] = "/tmp/test-topology.XXXXXX";
        int fd;

        /* root reads a mode-000 file anyway (CAP_DAC_OVERRIDE). */
        if (geteuid() == 0) {
                printf("# skipped: root can read a mode-000 file\n");
                return;
        }
        fd = mkstemp(path);
        ASSERT_TRUE(fd >= 0);
        close(fd);
        ASSERT_OK(chmod(path, 0));
        ASSERT_ERROR(topology_load(path, &t, &error), EACCES);
        ASSERT_TRUE(asprintf(&expected, "%s: Permission denied", path) > 0);
        (void) unlink(path);
        ASSERT_STREQ(error, expected);
}

TEST(binary_input) {
        static const char nul_in_value[] = "[policy0]\ncpus = 0\0junk\ndriver = x\n";
        static const char nul_in_comment[] = "# a comment\0\n[system]\n";
        static const char elf[] = "\x7f" "ELF\x02\x01\x01\0\0\0";
        static const char no_nul[] = "\x7f" "ELF\x02\x01\x01\xff\xfe\n";
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *long_line = NULL;
        size_t n = 70000;

        /* C strings would cut these lines at the NUL (and "cpus = 0" would pass): the line is an error. */
        ASSERT_TRUE(parse_bytes_fails_with(nul_in_value, sizeof(nul_in_value) - 1, EINVAL,
                                           "t.ini:2: NUL byte in line"));
        ASSERT_TRUE(parse_bytes_fails_with(nul_in_comment, sizeof(nul_in_comment) - 1, EINVAL,
                                           "t.ini:1: NUL byte in line"));
        ASSERT_TRUE(parse_bytes_fails_with(elf, sizeof(elf) - 1, EINVAL, "t.ini:1: NUL byte in line"));
        ASSERT_TRUE(parse_bytes_fails_with(no_nul, sizeof(no_nul) - 1, EINVAL,
                                           "t.ini:1: expected \"key = value\" or \"[section]\""));

        /* A line without end (/dev/zero, a binary) is refused past 65536 bytes, not read until memory runs out. */
        long_line = malloc(n);
        ASSERT_TRUE(long_line);
        memcpy(long_line, "[system]\n#", 10);
        memset(long_line + 10, 'x', n - 10);
        ASSERT_TRUE(parse_bytes_fails_with(long_line, n, EINVAL, "t.ini:2: line too long (more than 65536 bytes)"));
        /* 65536 bytes, the newline included, are fine. */
        long_line[9 + 65535] = '\n';
        ASSERT_OK(parse_bytes(long_line, 9 + 65536, &t, NULL));
        ASSERT_EQ(t->n_policies, 0);
}

TEST(defaults) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        char buf[64];

        ASSERT_OK(parse_text("[policy2]\ncpus = 2-3\ndriver = cpufreq-dt\n"
                             "frequencies_khz = 500000 1000000\n", &t, &error));
        ASSERT_EQ(t->n_policies, 1);
        /* cpuinfo limits from the table, scaling limits from cpuinfo, latency default. */
        ASSERT_EQ(t->policies[0].cpuinfo_min_khz, 500000);
        ASSERT_EQ(t->policies[0].cpuinfo_max_khz, 1000000);
        ASSERT_EQ(t->policies[0].scaling_min_khz, 500000);
        ASSERT_EQ(t->policies[0].scaling_max_khz, 1000000);
        ASSERT_U64_EQ(t->policies[0].transition_latency_ns, TOPOLOGY_DEFAULT_LATENCY_NS);
        /* online: the policies' CPUs; possible: 0..highest. */
        ASSERT_OK(cpulist_format(&t->online, buf, sizeof(buf)));
        ASSERT_STREQ(buf, "2-3");
        ASSERT_OK(cpulist_format(&t->possible, buf, sizeof(buf)));
        ASSERT_STREQ(buf, "0-3");
        ASSERT_TRUE(roundtrips(t));
}

TEST(syntax_tolerated) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;

        ASSERT_OK(parse_text("\xef\xbb\xbf# comment\r\n"
                             "; another comment\n"
                             "\n"
                             "  [ system ]  \n"
                             "online=0-1   # inline comment\n"
                             "\tpossible =\t0-3 ; inline\n"
                             "[policy0]\r\n"
                             "cpus = 0-1\n"
                             "driver = acpi-cpufreq\n"
                             "cpuinfo_min_khz = 1000\n"
                             "cpuinfo_max_khz = 2000\n"
                             "governors =   performance    powersave userspace  \n", &t, &error));
        ASSERT_EQ(t->n_policies, 1);
        ASSERT_EQ(CPU_COUNT(&t->possible), 4);
        ASSERT_STREQ(t->policies[0].governors, "performance powersave userspace");
}

TEST(empty_topology) {
        _cleanup_(topology_freep) Topology *t = NULL, *t2 = NULL;
        _cleanup_free_ char *error = NULL;

        /* A machine without cpufreq: a [system] section and no policy is a valid description. */
        ASSERT_OK(parse_text("[system]\nonline = 0-1\n", &t, &error));
        ASSERT_EQ(t->n_policies, 0);
        ASSERT_EQ(CPU_COUNT(&t->possible), 2);
        ASSERT_TRUE(roundtrips(t));
        ASSERT_OK(parse_text("# nothing\n[system]\n", &t2, &error));
        ASSERT_EQ(t2->n_policies, 0);
        ASSERT_EQ(CPU_COUNT(&t2->possible), 0);

        /* No section at all is not a description but an empty (or truncated) file. */
        ASSERT_TRUE(parse_fails_with("", "t.ini: no [system] or [policyN] section (an empty file?)"));
        ASSERT_TRUE(parse_fails_with("# nothing\n\n", "t.ini: no [system] or [policyN] section (an empty file?)"));
}

#define POLICY0 "[policy0]\ncpus = 0\ndriver = acpi-cpufreq\n"

TEST(errors_syntax) {
        ASSERT_TRUE(parse_fails_with("cpus = 0\n", "t.ini:1: \"cpus\" outside of a section"));
        ASSERT_TRUE(parse_fails_with("\n\n[policy0\n", "t.ini:3: section header lacks ']'"));
        ASSERT_TRUE(parse_fails_with("[]\n", "t.ini:1: empty section name"));
        ASSERT_TRUE(parse_fails_with("[cpu0]\n",
                                     "t.ini:1: unknown section [cpu0] (expected [system] or [policyN], N < 1024)"));
        ASSERT_TRUE(parse_fails_with("[policy01]\n",
                                     "t.ini:1: unknown section [policy01] (expected [system] or [policyN], N < 1024)"));
        ASSERT_TRUE(parse_fails_with("[policy1024]\n",
                                     "t.ini:1: unknown section [policy1024] (expected [system] or [policyN], N < 1024)"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "just text\n",
                                     "t.ini:4: expected \"key = value\" or \"[section]\""));
        ASSERT_TRUE(parse_fails_with(POLICY0 " = 5\n", "t.ini:4: empty key"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "frobnicate = 1\n", "t.ini:4: unknown key \"frobnicate\" in [policy0]"));
        ASSERT_TRUE(parse_fails_with("[system]\nonline = 0\nkernel_max = 3\n",
                                     "t.ini:3: unknown key \"kernel_max\" in [system]"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "driver = x\n", "t.ini:4: driver is set twice (first on line 3)"));
        ASSERT_TRUE(parse_fails_with("[system]\n[system]\n", "t.ini:2: section [system] repeats line 1"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1\ncpuinfo_max_khz = 2\n[policy0]\n",
                                     "t.ini:6: section [policy0] appears twice"));
}

TEST(errors_values) {
        ASSERT_TRUE(parse_fails_with("[policy0]\ncpus = \n", "t.ini:2: cpus: the list is empty"));
        ASSERT_TRUE(parse_fails_with("[policy0]\ncpus = 3-1\n", "t.ini:2: cpus: \"3-1\" is not a CPU list"));
        ASSERT_TRUE(parse_fails_with("[policy0]\ncpus = 1,,2\n", "t.ini:2: cpus: \"1,,2\" is not a CPU list"));
        ASSERT_TRUE(parse_fails_with("[policy0]\ncpus = 0-1024\n", "t.ini:2: cpus: \"0-1024\" names a CPU above 1023"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = -5\n",
                                     "t.ini:4: cpuinfo_min_khz: \"-5\" is not a frequency in kHz"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 12 MHz\n",
                                     "t.ini:4: cpuinfo_min_khz: \"12 MHz\" is not a frequency in kHz"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_max_khz = 4294967296\n",
                                     "t.ini:4: cpuinfo_max_khz: \"4294967296\" is out of range (max 4294967295)"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "frequencies_khz = 1000 3000 2000\n",
                                     "t.ini:4: frequencies_khz: 2000 after 3000: the table must be strictly ascending"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "frequencies_khz = 1000 1000\n",
                                     "t.ini:4: frequencies_khz: 1000 after 1000: the table must be strictly ascending"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "frequencies_khz = 1000 x\n",
                                     "t.ini:4: frequencies_khz: \"x\" is not a frequency in kHz"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "capacity = 1025\n", "t.ini:4: capacity: \"1025\" is not a number in 0..1024"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "transition_latency_ns = 4294967296\n",
                                     "t.ini:4: transition_latency_ns: \"4294967296\" is not a number in 0..4294967295"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "driver = a b\n", "t.ini:4: driver is set twice (first on line 3)"));
        ASSERT_TRUE(parse_fails_with("[policy0]\ndriver = a b\n", "t.ini:2: driver: \"a b\" is not a driver name"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "governor = user space\n",
                                     "t.ini:4: governor: \"user space\" is not a governor name (one word, at most 15 characters)"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "governors = performance averyveryverylongname\n",
                                     "t.ini:4: governors: \"averyveryverylongname\" is longer than 15 characters"));
        ASSERT_TRUE(parse_fails_with("[system]\nonline = x\n", "t.ini:2: online: \"x\" is not a CPU list"));
}

TEST(errors_consistency) {
        ASSERT_TRUE(parse_fails_with("[policy0]\ndriver = x\n", "t.ini:1: [policy0] lacks cpus"));
        ASSERT_TRUE(parse_fails_with("[policy0]\ncpus = 0\n", "t.ini:1: [policy0] lacks driver"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_max_khz = 5\n", "t.ini:1: [policy0] lacks cpuinfo_min_khz"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 5\n", "t.ini:1: [policy0] lacks cpuinfo_max_khz"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 0\ncpuinfo_max_khz = 5\n",
                                     "t.ini:4: cpuinfo_min_khz must be above 0"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 3000\ncpuinfo_max_khz = 2000\n",
                                     "t.ini:4: cpuinfo_min_khz 3000 is above cpuinfo_max_khz 2000"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1000\ncpuinfo_max_khz = 3000\n"
                                     "scaling_max_khz = 1500\nscaling_min_khz = 2000\n",
                                     "t.ini:7: scaling_min_khz 2000 is above scaling_max_khz 1500"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1000\ncpuinfo_max_khz = 3000\n"
                                     "scaling_min_khz = 500\n",
                                     "t.ini:6: scaling_min_khz 500 is below cpuinfo_min_khz 1000"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1000\ncpuinfo_max_khz = 3000\n"
                                     "scaling_max_khz = 3500\n",
                                     "t.ini:6: scaling_max_khz 3500 is above cpuinfo_max_khz 3000"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1000\ncpuinfo_max_khz = 3000\n"
                                     "frequencies_khz = 1000 2000 4000\n",
                                     "t.ini:6: frequencies_khz must lie within cpuinfo_min_khz..cpuinfo_max_khz (1000..3000)"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1000\ncpuinfo_max_khz = 3000\ncur_khz = 900\n",
                                     "t.ini:6: cur_khz 900 is outside cpuinfo_min_khz..cpuinfo_max_khz"));
        ASSERT_TRUE(parse_fails_with("[policy0]\ncpus = 0\ndriver = intel_pstate\ncpuinfo_min_khz = 1\n"
                                     "cpuinfo_max_khz = 2\ngovernor = userspace\n",
                                     "t.ini:6: governor \"userspace\" is not one of \"performance powersave\""));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1\ncpuinfo_max_khz = 2\ngovernors = performance\n"
                                     "governor = schedutil\n",
                                     "t.ini:7: governor \"schedutil\" is not one of \"performance\""));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1\ncpuinfo_max_khz = 2\n"
                                     "[policy1]\ndriver = acpi-cpufreq\ncpus = 1-2,0\ncpuinfo_min_khz = 1\ncpuinfo_max_khz = 2\n",
                                     "t.ini:8: CPU 0 is already in [policy0]"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1\ncpuinfo_max_khz = 2\n[system]\npossible = 1-3\n",
                                     "t.ini:7: CPU 0 of [policy0] is not possible"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1\ncpuinfo_max_khz = 2\n[system]\npossible = 0\n"
                                     "online = 0-1\n",
                                     "t.ini:8: online CPU 1 is not possible"));
        ASSERT_TRUE(parse_fails_with("[system]\npossible = 0-3\nonline = \n", "t.ini:3: no CPU is online"));
}

/* The Energy Model's inefficient entries: optional, entries of the table, written back as read (text and JSON). */
TEST(inefficient_key) {
        static const char *const text =
                "[policy0]\ncpus = 0\ndriver = cpufreq-dt\ninefficient_khz = 1000000 1500000\n"
                "frequencies_khz = 500000 1000000 1500000 2000000\n"
                "[policy1]\ncpus = 1\ndriver = cpufreq-dt\nfrequencies_khz = 500000 2000000\n";
        _cleanup_(topology_freep) Topology *t = NULL, *copy = NULL;
        _cleanup_free_ char *error = NULL, *out = NULL, *json = NULL;
        size_t size = 0;
        FILE *f;

        /* The key may come before the table: it is checked when the section ends. */
        ASSERT_OK(parse_text(text, &t, &error));
        ASSERT_EQ(t->policies[0].n_inefficient, 2);
        ASSERT_EQ(t->policies[0].inefficient_khz[0], 1000000);
        ASSERT_EQ(t->policies[0].inefficient_khz[1], 1500000);
        ASSERT_TRUE(policy_khz_inefficient(&t->policies[0], 1500000));
        ASSERT_TRUE(!policy_khz_inefficient(&t->policies[0], 2000000));
        ASSERT_TRUE(!t->policies[1].inefficient_khz && t->policies[1].n_inefficient == 0);
        ASSERT_TRUE(roundtrips(t));

        out = topology_to_string(t);
        ASSERT_TRUE(out && strstr(out, "frequencies_khz = 500000 1000000 1500000 2000000\n"
                                       "inefficient_khz = 1000000 1500000\n"));
        ASSERT_TRUE(!strstr(strstr(out, "[policy1]"), "inefficient_khz"));
        f = open_memstream(&json, &size);
        ASSERT_TRUE(f);
        ASSERT_OK(topology_write_json(f, t));
        fclose(f);
        ASSERT_TRUE(strstr(json, "\"inefficient_khz\": [1000000, 1500000]"));

        /* topology_add_policy() copies the list as it copies the table. */
        ASSERT_OK(topology_new(&copy));
        ASSERT_OK(topology_add_policy(copy, &t->policies[0]));
        ASSERT_TRUE(copy->policies[0].inefficient_khz != t->policies[0].inefficient_khz);
        ASSERT_TRUE(policy_equal(&copy->policies[0], &t->policies[0]));

        ASSERT_TRUE(parse_fails_with(POLICY0 "cpuinfo_min_khz = 1000\ncpuinfo_max_khz = 3000\n"
                                     "inefficient_khz = 2000\n",
                                     "t.ini:6: inefficient_khz flags entries of frequencies_khz, which [policy0] "
                                     "lacks"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "frequencies_khz = 1000 2000 3000\ninefficient_khz = 2000 2500\n",
                                     "t.ini:5: inefficient_khz: 2500 is not an entry of frequencies_khz"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "inefficient_khz = 1500\nfrequencies_khz = 1000 2000 3000\n",
                                     "t.ini:4: inefficient_khz: 1500 is not an entry of frequencies_khz"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "frequencies_khz = 1000 2000 3000\ninefficient_khz = 2000 1000\n",
                                     "t.ini:5: inefficient_khz: 1000 after 2000: the list must be strictly ascending"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "frequencies_khz = 1000 2000 3000\ninefficient_khz =\n",
                                     "t.ini:5: inefficient_khz: the list is empty"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "frequencies_khz = 1000 2000 3000\ninefficient_khz = 2GHz\n",
                                     "t.ini:5: inefficient_khz: \"2GHz\" is not a frequency in kHz"));
        ASSERT_TRUE(parse_fails_with(POLICY0 "frequencies_khz = 1000 2000\ninefficient_khz = 1000\n"
                                     "inefficient_khz = 1000\n",
                                     "t.ini:6: inefficient_khz is set twice (first on line 5)"));
}

/* Text for @n per-CPU policies, or one policy of @n CPUs when !per_cpu. */
static char *big_topology_text(unsigned n, bool per_cpu) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        fprintf(f, "[system]\npossible = 0-%u\n", n - 1);
        for (unsigned i = 0; i < (per_cpu ? n : 1); i++) {
                fprintf(f, "[policy%u]\n", i);
                if (per_cpu)
                        fprintf(f, "cpus = %u\n", i);
                else
                        fprintf(f, "cpus = 0-%u\n", n - 1);
                fprintf(f, "driver = acpi-cpufreq\nfrequencies_khz = 800000 1600000 %u\ncapacity = %u\n",
                        2400000 + i, 512 + i % 513);
        }
        fclose(f);
        return buf;
}

TEST(cpus_1024_per_cpu) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL, *text = NULL;
        const PolicyDesc *p;

        text = big_topology_text(1024, true);
        ASSERT_TRUE(text);
        ASSERT_OK(parse_text(text, &t, &error));
        ASSERT_EQ(t->n_policies, 1024);
        ASSERT_EQ(CPU_COUNT(&t->possible), 1024);
        ASSERT_EQ(CPU_COUNT(&t->online), 1024);
        p = topology_policy_of_cpu(t, 1023);
        ASSERT_TRUE(p);
        ASSERT_EQ(p->id, 1023);
        ASSERT_EQ(p->cpuinfo_max_khz, 2400000 + 1023);
        for (size_t i = 1; i < t->n_policies; i++)
                ASSERT_TRUE(t->policies[i - 1].id < t->policies[i].id);
        ASSERT_TRUE(roundtrips(t));
}

TEST(cpus_1024_one_policy) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL, *text = NULL, *out = NULL;

        text = big_topology_text(1024, false);
        ASSERT_TRUE(text);
        ASSERT_OK(parse_text(text, &t, &error));
        ASSERT_EQ(t->n_policies, 1);
        ASSERT_EQ(CPU_COUNT(&t->policies[0].cpus), 1024);
        ASSERT_EQ(topology_policy_of_cpu(t, 1023)->id, 0);
        ASSERT_EQ(topology_policy_of_cpu(t, 0)->id, 0);
        out = topology_to_string(t);
        ASSERT_TRUE(out && strstr(out, "cpus = 0-1023\n"));
        ASSERT_TRUE(roundtrips(t));
}

TEST(add_policy_sorted) {
        _cleanup_(topology_freep) Topology *t = NULL;
        uint32_t table[] = { 100, 200 };
        PolicyDesc p = {
                .driver = "cpufreq-dt",
                .cpuinfo_min_khz = 100,
                .cpuinfo_max_khz = 200,
                .frequencies_khz = table,
                .n_frequencies = 2,
        };
        unsigned ids[] = { 5, 1, 9, 3, 7, 0, 2, 8, 4, 6 };

        ASSERT_OK(topology_new(&t));
        for (size_t i = 0; i < ELEMENTSOF(ids); i++) {
                p.id = ids[i];
                CPU_ZERO(&p.cpus);
                CPU_SET(ids[i], &p.cpus);
                ASSERT_OK(topology_add_policy(t, &p));
        }
        ASSERT_ERROR(topology_add_policy(t, &p), EEXIST);
        ASSERT_EQ(t->n_policies, 10);
        for (unsigned i = 0; i < 10; i++) {
                ASSERT_EQ(t->policies[i].id, i);
                /* The table was copied, not shared. */
                ASSERT_TRUE(t->policies[i].frequencies_khz != table);
                ASSERT_EQ(t->policies[i].frequencies_khz[1], 200);
        }
        ASSERT_EQ(topology_policy_of_cpu(t, 7)->id, 7);
}

TEST(default_governors) {
        ASSERT_STREQ(topology_default_governors("intel_pstate"), "performance powersave");
        ASSERT_STREQ(topology_default_governors("amd-pstate-epp"), "performance powersave");
        ASSERT_STREQ(topology_default_governors("intel_cpufreq"),
                     "conservative ondemand userspace powersave performance schedutil");
        ASSERT_STREQ(topology_default_governors("amd-pstate"),
                     "conservative ondemand userspace powersave performance schedutil");
        ASSERT_STREQ(topology_default_governors(""),
                     "conservative ondemand userspace powersave performance schedutil");
        ASSERT_TRUE(governors_contains(topology_default_governors("acpi-cpufreq"), "userspace"));
        ASSERT_TRUE(!governors_contains(topology_default_governors("intel_pstate"), "userspace"));
}

TEST(governors_contains_words) {
        ASSERT_TRUE(governors_contains("performance powersave", "performance"));
        ASSERT_TRUE(governors_contains("performance powersave", "powersave"));
        ASSERT_TRUE(governors_contains("conservative ondemand userspace powersave performance schedutil \n",
                                       "schedutil"));
        ASSERT_TRUE(governors_contains("  userspace  ", "userspace"));
        ASSERT_TRUE(!governors_contains("performance powersave", "perf"));
        ASSERT_TRUE(!governors_contains("performance powersave", "powersaveX"));
        ASSERT_TRUE(!governors_contains("userspaces", "userspace"));
        ASSERT_TRUE(!governors_contains("performance powersave", ""));
        ASSERT_TRUE(!governors_contains("", "userspace"));
        ASSERT_TRUE(!governors_contains(NULL, "userspace"));
        ASSERT_TRUE(!governors_contains("userspace", NULL));
}

TEST(resolve_table) {
        uint32_t table[] = { 800000, 1200000, 1600000, 2000000, 2400000 };
        PolicyDesc p = { .frequencies_khz = table, .n_frequencies = ELEMENTSOF(table) };

        /* Exact entries and between entries: the lowest entry >= value (CPUFREQ_RELATION_L). */
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 1200000), 1200000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 1200001), 1600000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 1599999), 1600000);
        /* Clamped to the limits first. */
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 0), 800000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, UINT32_MAX), 2400000);
        ASSERT_EQ(policy_resolve_khz(&p, 1200000, 2000000, 100), 1200000);
        ASSERT_EQ(policy_resolve_khz(&p, 1200000, 2000000, 3000000), 2000000);
        ASSERT_EQ(policy_resolve_khz(&p, 1200000, 1200000, 2000000), 1200000);
        /* A limit between entries: the clamped value resolves upwards like the kernel
         * (cpufreq_set_policy() resolves policy->max downwards beforehand, see the emulator). */
        ASSERT_EQ(policy_resolve_khz(&p, 900000, 1700000, 100), 1200000);
        /* Every entry below the (clamped) value: the highest entry, which is <= max. */
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 3000000, 2900000), 2400000);
        /* Inverted limits collapse to max (cpufreq_driver_resolve_freq()). */
        ASSERT_EQ(policy_resolve_khz(&p, 2000000, 1200000, 100), 1200000);
}

/* CPUFREQ_RELATION_LE (schedutil, 5.16+): inefficient entries skipped, unless that leaves the limits. */
TEST(resolve_inefficient) {
        uint32_t table[] = { 800000, 1200000, 1600000, 2000000, 2400000 };
        uint32_t middle[] = { 1200000, 1600000 }, all_but_top[] = { 800000, 1200000, 1600000, 2000000 };
        uint32_t top[] = { 2400000 };
        PolicyDesc p = { .frequencies_khz = table, .n_frequencies = ELEMENTSOF(table),
                         .inefficient_khz = middle, .n_inefficient = ELEMENTSOF(middle) };

        /* The lowest *efficient* entry >= the value: 1200000 and 1600000 are passed over for 2000000. */
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 800000), 800000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 800001), 2000000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 1200000), 2000000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 1600000), 2000000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 2000001), 2400000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 0), 800000);
        /* CPUFREQ_RELATION_L alone (a scaling_setspeed write) takes them. */
        ASSERT_EQ(policy_resolve_l_khz(&p, 800000, 2400000, 800001), 1200000);
        ASSERT_EQ(policy_resolve_l_khz(&p, 800000, 2400000, 1600000), 1600000);

        /* The efficient entry is above max: looked up again over every entry (cpufreq_is_in_limits()). */
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 1600000, 1000000), 1200000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 1600000, 2400000), 1600000);
        /* A min that is inefficient: the value clamped to it still resolves to the next efficient entry. */
        ASSERT_EQ(policy_resolve_khz(&p, 1600000, 2400000, 0), 2000000);
        /* Inverted limits collapse to max first. */
        ASSERT_EQ(policy_resolve_khz(&p, 2400000, 1200000, 100), 1200000);

        /* Only the top efficient: every value resolves to it while it is within the limits. */
        p.inefficient_khz = all_but_top;
        p.n_inefficient = ELEMENTSOF(all_but_top);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 0), 2400000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2000000, 0), 800000);

        /* The top inefficient and the value above every efficient entry: the highest efficient one, below
         * the value, as cpufreq_table_find_index_al() gives it (within the limits, so kept). */
        p.inefficient_khz = top;
        p.n_inefficient = ELEMENTSOF(top);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 2100000), 2000000);

        /* Every entry inefficient: nothing efficient at all, so plain RELATION_L. */
        p.inefficient_khz = table;
        p.n_inefficient = ELEMENTSOF(table);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 1000000), 1200000);
        ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, 2400000), 2400000);

        /* No inefficient entries: RELATION_LE is RELATION_L. */
        p.inefficient_khz = NULL;
        p.n_inefficient = 0;
        for (uint32_t khz = 0; khz <= 2500000; khz += 50000)
                ASSERT_EQ(policy_resolve_khz(&p, 800000, 2400000, khz), policy_resolve_l_khz(&p, 800000, 2400000, khz));
}

TEST(resolve_single_entry_and_continuous) {
        uint32_t one[] = { 1000000 };
        PolicyDesc single = { .frequencies_khz = one, .n_frequencies = 1 };
        PolicyDesc cont = { .cpuinfo_min_khz = 400000, .cpuinfo_max_khz = 4700000 };

        ASSERT_EQ(policy_resolve_khz(&single, 1000000, 1000000, 5), 1000000);
        ASSERT_EQ(policy_resolve_khz(&single, 500000, 2000000, 1500000), 1000000);

        /* No table: the clamped value itself. */
        ASSERT_EQ(policy_resolve_khz(&cont, 400000, 4700000, 1234567), 1234567);
        ASSERT_EQ(policy_resolve_khz(&cont, 400000, 4700000, 1), 400000);
        ASSERT_EQ(policy_resolve_khz(&cont, 400000, 3000000, 4000000), 3000000);
        ASSERT_EQ(policy_resolve_khz(NULL, 10, 20, 15), 15);
}

DEFINE_TEST_MAIN

/* [system] autogroup: whether every session is a task group on the described kernel (demand-groups.c). */
TEST(autogroup_key) {
        static const char *const policy = "[policy0]\ncpus = 0\ndriver = acpi-cpufreq\nfrequencies_khz = 500000\n";
        _cleanup_(topology_freep) Topology *t = NULL, *off = NULL;
        _cleanup_free_ char *error = NULL, *text = NULL, *out = NULL;

        ASSERT_TRUE(asprintf(&text, "[system]\nautogroup = yes\n%s", policy) > 0);
        ASSERT_OK(parse_text(text, &t, &error));
        ASSERT_TRUE(t->autogroup);
        out = topology_to_string(t);
        ASSERT_TRUE(out && strstr(out, "autogroup = yes\n"));
        ASSERT_OK(parse_text(policy, &off, &error));
        ASSERT_TRUE(!off->autogroup);
        ASSERT_TRUE(parse_fails_with("[system]\nautogroup = maybe\n", "t.ini:2: autogroup: \"maybe\" is not yes or no"));
        ASSERT_TRUE(parse_fails_with("[system]\nautogroup = no\nautogroup = yes\n",
                                     "t.ini:3: autogroup is set twice (first on line 2)"));
}

/* [system] delayed_dequeue: yes by default (written only when no), as the model's delayed tasks depend on it. */
TEST(delayed_dequeue_key) {
        static const char *const policy = "[policy0]\ncpus = 0\ndriver = acpi-cpufreq\nfrequencies_khz = 500000\n";
        _cleanup_(topology_freep) Topology *t = NULL, *on = NULL;
        _cleanup_free_ char *error = NULL, *text = NULL, *out = NULL, *out_on = NULL;

        ASSERT_TRUE(asprintf(&text, "[system]\ndelayed_dequeue = no\n%s", policy) > 0);
        ASSERT_OK(parse_text(text, &t, &error));
        ASSERT_TRUE(t->no_delayed_dequeue);
        out = topology_to_string(t);
        ASSERT_TRUE(out && strstr(out, "delayed_dequeue = no\n"));
        ASSERT_OK(parse_text(policy, &on, &error));
        ASSERT_TRUE(!on->no_delayed_dequeue);
        out_on = topology_to_string(on);
        ASSERT_TRUE(out_on && !strstr(out_on, "delayed_dequeue"));
        ASSERT_TRUE(parse_fails_with("[system]\ndelayed_dequeue = later\n",
                                     "t.ini:2: delayed_dequeue: \"later\" is not yes or no"));
        ASSERT_TRUE(parse_fails_with("[system]\ndelayed_dequeue = yes\ndelayed_dequeue = no\n",
                                     "t.ini:3: delayed_dequeue is set twice (first on line 2)"));
}
