/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actuator: the pure parts (state file text, hints, write order) and the refusals that happen before any
 * sysfs access. These run anywhere.
 *
 * With SCHEDFREQD_TEST_ACTUATOR_STATE set (a state file path), the scenario tests are registered too; they
 * take over the policies of whatever is at /sys/devices/system/cpu, so tests/integration/test-actuator.sh runs
 * them one at a time inside a private mount namespace over a fixture tree (plain files) or the cpufreq
 * emulator, and compares the tree before and after. SCHEDFREQD_TEST_ACTUATOR_KERNEL=1 says the tree has the
 * kernel's semantics (the emulator), so frequencies read back are checked too.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "actuator.h"
#include "macro.h"
#include "test.h"
#include "topology.h"

DEFINE_TEST_MAIN;

static const ActuatorSaved saved_example[] = {
        { .id = 0, .dir = (char *) SYSFS_CPU_DIR "/cpufreq/policy0", .governor = "schedutil",
          .scaling_min_khz = 500000, .scaling_max_khz = 1400000, .setspeed_khz = 800000,
          .has_rate_limit = true, .rate_limit_us = 7777 },
        { .id = 2, .dir = (char *) SYSFS_CPU_DIR "/cpu2/cpufreq", .governor = "userspace",
          .scaling_min_khz = 600000, .scaling_max_khz = 1800000, .setspeed_khz = 0 },
};

TEST(state_round_trip) {
        _cleanup_free_ char *text = NULL, *error = NULL;
        _cleanup_fclose_ FILE *in = NULL;
        ActuatorSaved *s = NULL;
        size_t size = 0, n = 0;
        FILE *out;

        out = open_memstream(&text, &size);
        ASSERT_TRUE(out);
        ASSERT_OK(actuator_state_write(out, saved_example, ELEMENTSOF(saved_example)));
        fclose(out);
        ASSERT_TRUE(strstr(text, "[policy2]\ndir = /sys/devices/system/cpu/cpu2/cpufreq\ngovernor = userspace\n"
                                 "scaling_min_khz = 600000\nscaling_max_khz = 1800000\nsetspeed_khz = 0\n"));
        /* schedutil's rate_limit_us only where it was saved. */
        ASSERT_TRUE(strstr(text, "setspeed_khz = 800000\nrate_limit_us = 7777\n"));
        ASSERT_TRUE(!strstr(strstr(text, "[policy2]"), "rate_limit_us"));

        in = fmemopen(text, strlen(text), "r");
        ASSERT_TRUE(in);
        ASSERT_OK(actuator_state_parse(in, "state", &s, &n, &error));
        ASSERT_EQ(n, 2);
        for (size_t i = 0; i < n; i++) {
                ASSERT_EQ(s[i].id, saved_example[i].id);
                ASSERT_STREQ(s[i].dir, saved_example[i].dir);
                ASSERT_STREQ(s[i].governor, saved_example[i].governor);
                ASSERT_EQ(s[i].scaling_min_khz, saved_example[i].scaling_min_khz);
                ASSERT_EQ(s[i].scaling_max_khz, saved_example[i].scaling_max_khz);
                ASSERT_EQ(s[i].setspeed_khz, saved_example[i].setspeed_khz);
                ASSERT_EQ(s[i].has_rate_limit, saved_example[i].has_rate_limit);
                ASSERT_EQ(s[i].rate_limit_us, saved_example[i].rate_limit_us);
        }
        actuator_saved_free_many(s, n);
}

#define SECTION0 "[policy0]\ndir = /sys/devices/system/cpu/cpufreq/policy0\ngovernor = schedutil\n" \
                 "scaling_min_khz = 500000\nscaling_max_khz = 1400000\nsetspeed_khz = 800000\n"

static const struct {
        const char *text;
        const char *error;
} bad_states[] = {
        { "# comment\n\n  [policy0]\n dir=/sys/devices/system/cpu/cpufreq/policy0\n",
          "st:3: [policy0] lacks governor" },
        { SECTION0 "foo = 1\n", "st:7: unknown key \"foo\"" },
        { SECTION0 "rate_limit_us = 2ms\n", "st:7: rate_limit_us: not a number of microseconds" },
        { SECTION0 "rate_limit_us = 1\nrate_limit_us = 2\n", "st:8: rate_limit_us given twice" },
        { "[policy0]\ndir = /sys/devices/system/cpu/cpufreq/policy0\ngovernor = ondemand\n"
          "scaling_min_khz = 500000\nscaling_max_khz = 1400000\nsetspeed_khz = 800000\nrate_limit_us = 10\n",
          "st:1: [policy0] has rate_limit_us but governor ondemand" },
        { SECTION0 "governor = ondemand\n", "st:7: governor given twice" },
        { SECTION0 SECTION0, "st:7: [policy0] appears twice" },
        { "dir = /x\n", "st:1: key outside a [policyN] section" },
        { "[policy]\n", "st:1: expected a [policyN] section" },
        { "[policy1x]\n", "st:1: expected a [policyN] section" },
        { "[policy0]\njust words\n", "st:2: expected key = value" },
        { "[policy0]\ndir = /etc/schedfreqd\n", "st:2: dir: dir must be a directory under /sys/devices/system/cpu" },
        { "[policy0]\ndir = /sys/devices/system/cpu/../../../etc\n",
          "st:2: dir: dir must be a directory under /sys/devices/system/cpu" },
        { "[policy0]\ngovernor = ../../bin/sh\n", "st:2: governor: invalid governor name" },
        { "[policy0]\ngovernor = schedutil2\n", "st:2: governor: invalid governor name" },
        { "[policy0]\nscaling_min_khz = -5\n", "st:2: scaling_min_khz: not a frequency in kHz" },
        { "[policy0]\nsetspeed_khz = 99999999999\n", "st:2: setspeed_khz: not a frequency in kHz" },
        { "[policy3]\ndir = /sys/devices/system/cpu/cpu3/cpufreq\ngovernor = ondemand\nscaling_min_khz = 9\n"
          "scaling_max_khz = 8\nsetspeed_khz = 0\n", "st:1: [policy3] has scaling_min_khz > scaling_max_khz" },
};

TEST(state_parse_errors) {
        for (size_t i = 0; i < ELEMENTSOF(bad_states); i++) {
                _cleanup_free_ char *error = NULL;
                _cleanup_fclose_ FILE *in = NULL;
                ActuatorSaved *s = NULL;
                size_t n = 0;

                in = fmemopen((char *) bad_states[i].text, strlen(bad_states[i].text), "r");
                ASSERT_TRUE(in);
                ASSERT_ERROR(actuator_state_parse(in, "st", &s, &n, &error), EINVAL);
                ASSERT_STREQ(error, bad_states[i].error);
                ASSERT_TRUE(!s);
        }
}

/* A state file is written only with some policy in it: without one it is truncated or not ours. */
TEST(state_parse_empty) {
        static const struct {
                const char *text;
                size_t len;
                const char *error;
        } cases[] = {
                { "", 0, "st:1: no [policyN] section (empty or truncated state file)" },
                { "# nothing held\n", 15, "st:1: no [policyN] section (empty or truncated state file)" },
                { "# a\n\n# b\n", 9, "st:3: no [policyN] section (empty or truncated state file)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *error = NULL;
                _cleanup_fclose_ FILE *in = NULL;
                ActuatorSaved *s = NULL;
                size_t n = 7;

                /* fmemopen() of a zero-length buffer fails on old glibc: an empty file through /dev/null. */
                in = cases[i].len > 0 ? fmemopen((char *) cases[i].text, cases[i].len, "r") : fopen("/dev/null", "re");
                ASSERT_TRUE(in);
                ASSERT_ERROR(actuator_state_parse(in, "st", &s, &n, &error), EINVAL);
                ASSERT_STREQ(error, cases[i].error);
                ASSERT_TRUE(!s);
        }
}

#define GOOD_POLICY0                                                                                    \
        "[policy0]\ndir = /sys/devices/system/cpu/cpufreq/policy0\ngovernor = schedutil\n"             \
        "scaling_min_khz = 400000\nscaling_max_khz = 2000000\n"

/* What a crash mid-write or a stray byte leaves: never acted upon (a cut "setspeed_khz = 12" would parse). */
TEST(state_parse_corrupt) {
        static const char nul[] = GOOD_POLICY0 "setspeed_khz = 12\0garbage\n";
        static const char cut[] = GOOD_POLICY0 "setspeed_khz = 12";
        static const char binary[] = "\x7f" "ELF\x02\x01\x01\n";
        static const struct {
                const char *text;
                size_t len;
                const char *error;
        } cases[] = {
                { nul, sizeof(nul) - 1, "st:6: NUL byte in the line" },
                { cut, sizeof(cut) - 1, "st:6: last line not terminated (truncated file?)" },
                { GOOD_POLICY0, sizeof(GOOD_POLICY0) - 1, "st:1: [policy0] lacks setspeed_khz" },
                { binary, sizeof(binary) - 1, "st:1: key outside a [policyN] section" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *error = NULL;
                _cleanup_fclose_ FILE *in = NULL;
                ActuatorSaved *s = NULL;
                size_t n = 0;

                in = fmemopen((char *) cases[i].text, cases[i].len, "r");
                ASSERT_TRUE(in);
                ASSERT_ERROR(actuator_state_parse(in, "st", &s, &n, &error), EINVAL);
                ASSERT_STREQ(error, cases[i].error);
                ASSERT_TRUE(!s);
        }
}

static char *tmp_dir(void) {
        char *d = strdup("/tmp/test-actuator.XXXXXX");

        if (d && !mkdtemp(d)) {
                free(d);
                return NULL;
        }
        return d;
}

TEST(restore_without_state_file) {
        _cleanup_free_ char *dir = tmp_dir(), *path = NULL, *error = NULL;

        ASSERT_TRUE(dir);
        ASSERT_TRUE(asprintf(&path, "%s/absent", dir) > 0);
        ASSERT_EQ(actuator_restore_from_state_file(path, false, &error), 0);
        ASSERT_TRUE(!error);
        (void) rmdir(dir);
}

TEST(restore_malformed_state_file) {
        _cleanup_free_ char *dir = tmp_dir(), *path = NULL, *error = NULL, *want = NULL;
        FILE *f;

        ASSERT_TRUE(dir);
        ASSERT_TRUE(asprintf(&path, "%s/state", dir) > 0);
        f = fopen(path, "we");
        ASSERT_TRUE(f);
        fputs("[policy0]\ngovernor = userspace\nbogus\n", f);
        fclose(f);
        ASSERT_ERROR(actuator_restore_from_state_file(path, false, &error), EINVAL);
        ASSERT_TRUE(asprintf(&want, "%s:3: expected key = value", path) > 0);
        ASSERT_STREQ(error, want);
        /* Kept: a human has to look at it. */
        ASSERT_EQ(access(path, F_OK), 0);
        (void) unlink(path);
        (void) rmdir(dir);
}

static void write_file(const char *path, const char *text, size_t len) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);

        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(write(fd, text, len), (ssize_t) len);
        close(fd);
}

/* An empty state file (a crash between creat and write, a `touch`) is not "nothing to restore": kept, -EINVAL. */
TEST(restore_empty_state_file) {
        _cleanup_free_ char *dir = tmp_dir(), *path = NULL, *error = NULL, *want = NULL;

        ASSERT_TRUE(dir);
        ASSERT_TRUE(asprintf(&path, "%s/state", dir) > 0);
        write_file(path, "", 0);
        ASSERT_ERROR(actuator_restore_from_state_file(path, false, &error), EINVAL);
        ASSERT_TRUE(asprintf(&want, "%s:1: no [policyN] section (empty or truncated state file)", path) > 0);
        ASSERT_STREQ(error, want);
        ASSERT_EQ(access(path, F_OK), 0);
        (void) unlink(path);
        (void) rmdir(dir);
}

/* A policy whose directory someone holds (a live daemon) is not restored under it; nothing written, file kept.
 * cpu0's sysfs directory stands in for the policy's: it is only locked, never written (refused first). */
TEST(restore_refused_while_owned) {
        _cleanup_free_ char *dir = tmp_dir(), *path = NULL, *error = NULL, *want = NULL, *text = NULL;
        const char *policy_dir = SYSFS_CPU_DIR "/cpu0";
        int fd;

        ASSERT_TRUE(dir);
        fd = open(policy_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
                printf("ok - restore_refused_while_owned # SKIP no lockable %s\n", policy_dir);
                if (fd >= 0)
                        close(fd);
                (void) rmdir(dir);
                return;
        }
        ASSERT_TRUE(asprintf(&path, "%s/state", dir) > 0);
        ASSERT_TRUE(asprintf(&text, "[policy0]\ndir = %s\ngovernor = schedutil\nscaling_min_khz = 1\n"
                                    "scaling_max_khz = 2\nsetspeed_khz = 0\n", policy_dir) > 0);
        write_file(path, text, strlen(text));
        ASSERT_ERROR(actuator_restore_from_state_file(path, false, &error), EBUSY);
        ASSERT_TRUE(asprintf(&want, "policy0 is governed by a running schedfreqd (PID %d), ", (int) getpid()) > 0);
        if (!strstr(error, want))
                TEST_FAIL("'%s' lacks '%s'", error, want);
        ASSERT_TRUE(strstr(error, "--force restores anyway"));
        ASSERT_EQ(access(path, F_OK), 0);
        close(fd);
        (void) unlink(path);
        (void) rmdir(dir);
}

TEST(lock_path) {
        _cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;

        ASSERT_OK(actuator_lock_path("/run/schedfreqd/state", &a));
        ASSERT_STREQ(a, "/run/schedfreqd/lock");
        ASSERT_OK(actuator_lock_path("/state", &b));
        ASSERT_STREQ(b, "/lock");
        ASSERT_OK(actuator_lock_path("state", &c));
        ASSERT_STREQ(c, "lock");
}

/* Held: a second take fails with the holder's PID (flock conflicts between open files, same process too). */
TEST(lock_take) {
        _cleanup_free_ char *dir = tmp_dir(), *path = NULL, *error = NULL;
        char buf[32] = "", want[32];
        int fd = -EBADF, fd2 = -EBADF, n;
        pid_t pid = -1;

        ASSERT_TRUE(dir);
        ASSERT_TRUE(asprintf(&path, "%s/sub/lock", dir) > 0);
        ASSERT_OK(actuator_lock_take(path, &fd, &pid, &error));
        ASSERT_EQ(pid, 0); /* a new file names nobody */
        n = (int) pread(fd, buf, sizeof(buf) - 1, 0);
        (void) snprintf(want, sizeof(want), "%d\n", (int) getpid());
        ASSERT_TRUE(n > 0);
        ASSERT_STREQ(buf, want);

        ASSERT_ERROR(actuator_lock_take(path, &fd2, &pid, &error), EBUSY);
        ASSERT_EQ(pid, getpid());
        ASSERT_TRUE(strstr(error, "is held by PID"));
        ASSERT_EQ(fd2, -EBADF);

        /* Released (as by a crash): the next holder takes it and learns who had it. */
        close(fd);
        ASSERT_OK(actuator_lock_take(path, &fd2, &pid, NULL));
        ASSERT_EQ(pid, getpid());
        close(fd2);
        (void) unlink(path);
        *strrchr(path, '/') = '\0';
        (void) rmdir(path);
        (void) rmdir(dir);
}

TEST(flock_holder_parse) {
        static const char locks[] =
                "1: POSIX  ADVISORY  WRITE 812 00:1a:77 0 EOF\n"
                "2: FLOCK  ADVISORY  WRITE 4242 00:28:3 0 EOF\n"
                "2: -> FLOCK  ADVISORY  WRITE 5000 00:28:3 0 EOF\n"
                "3: FLOCK  ADVISORY  WRITE 31 fd:01:3 0 EOF\n"
                "4: OFDLCK ADVISORY  READ  -1 00:1a:9 0 EOF\n";
        _cleanup_fclose_ FILE *f = NULL;
        pid_t pid = 0;

        f = fmemopen((char *) locks, sizeof(locks) - 1, "r");
        ASSERT_TRUE(f);
        ASSERT_OK(actuator_flock_holder_parse(f, makedev(0, 0x28), 3, &pid));
        ASSERT_EQ(pid, 4242);
        rewind(f);
        ASSERT_OK(actuator_flock_holder_parse(f, makedev(0xfd, 1), 3, &pid));
        ASSERT_EQ(pid, 31);
        rewind(f);
        ASSERT_ERROR(actuator_flock_holder_parse(f, makedev(0, 0x1a), 77, &pid), ENOENT); /* POSIX, not flock */
        rewind(f);
        ASSERT_ERROR(actuator_flock_holder_parse(f, makedev(0, 0x28), 4, &pid), ENOENT);
}

/* A one-policy topology, built by hand (no sysfs read). */
static void topology_one(Topology *t, PolicyDesc *p, const char *driver, const char *governors) {
        *p = (PolicyDesc) { .id = 0, .cpuinfo_min_khz = 400000, .cpuinfo_max_khz = 4700000,
                            .scaling_min_khz = 400000, .scaling_max_khz = 4700000 };
        CPU_ZERO(&p->cpus);
        CPU_SET(0, &p->cpus);
        strcpy(p->driver, driver);
        strcpy(p->governors, governors);
        strcpy(p->governor, "powersave");
        *t = (Topology) { .policies = p, .n_policies = 1 };
}

/* Refused before anything is read or written: no state file, no directory. */
TEST(take_over_no_userspace) {
        _cleanup_free_ char *dir = tmp_dir(), *path = NULL, *error = NULL;
        Actuator *a = NULL;
        PolicyDesc p;
        Topology t;

        ASSERT_TRUE(dir);
        ASSERT_TRUE(asprintf(&path, "%s/sub/state", dir) > 0);
        topology_one(&t, &p, "intel_pstate", "performance powersave");
        ASSERT_ERROR(actuator_take_over(&t, NULL, path, &a, &error), EOPNOTSUPP);
        ASSERT_TRUE(!a);
        ASSERT_STREQ(error, "policy0: driver intel_pstate offers no userspace governor (it offers: performance "
                            "powersave); boot with intel_pstate=passive (or write passive to "
                            "/sys/devices/system/cpu/intel_pstate/status)");
        free(error);
        error = NULL;
        topology_one(&t, &p, "amd-pstate-epp", "");
        ASSERT_ERROR(actuator_take_over(&t, NULL, path, &a, &error), EOPNOTSUPP);
        ASSERT_TRUE(strstr(error, "(it offers: none listed); boot with amd_pstate=passive"));
        ASSERT_TRUE(access(path, F_OK) < 0 && errno == ENOENT);
        free(path);
        ASSERT_TRUE(asprintf(&path, "%s/sub", dir) > 0);
        ASSERT_TRUE(access(path, F_OK) < 0 && errno == ENOENT);
        (void) rmdir(dir);
}

/* An unmanaged policy is not checked: nothing to take over is not an error. */
TEST(take_over_nothing_managed) {
        _cleanup_free_ char *dir = tmp_dir(), *path = NULL, *error = NULL;
        _cleanup_(actuator_freep) Actuator *a = NULL;
        const bool manage[] = { false };
        PolicyDesc p;
        Topology t;

        ASSERT_TRUE(dir);
        ASSERT_TRUE(asprintf(&path, "%s/state", dir) > 0);
        topology_one(&t, &p, "intel_pstate", "performance powersave");
        ASSERT_OK(actuator_take_over(&t, manage, path, &a, &error));
        ASSERT_TRUE(actuator_is_held(a));
        ASSERT_ERROR(actuator_set_khz(a, 0, 1000000), EBADF);
        ASSERT_ERROR(actuator_set_khz(a, 1, 1000000), EINVAL);
        ASSERT_TRUE(access(path, F_OK) < 0);
        ASSERT_OK(actuator_restore(a));
        (void) rmdir(dir);
}

TEST(take_over_stale_state_file) {
        _cleanup_free_ char *dir = tmp_dir(), *path = NULL, *error = NULL;
        const bool manage[] = { false };
        Actuator *a = NULL;
        PolicyDesc p;
        Topology t;
        int fd;

        ASSERT_TRUE(dir);
        ASSERT_TRUE(asprintf(&path, "%s/state", dir) > 0);
        fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        ASSERT_TRUE(fd >= 0);
        close(fd);
        /* Unmanaged: the check comes after the policies are locked, and these tests touch no sysfs. */
        topology_one(&t, &p, "acpi-cpufreq", "userspace schedutil");
        ASSERT_ERROR(actuator_take_over(&t, manage, path, &a, &error), EEXIST);
        ASSERT_TRUE(strstr(error, "exists: a previous schedfreqd did not exit cleanly"));
        ASSERT_TRUE(strstr(error, "run `schedfreqd restore --state-file "));
        (void) unlink(path);
        (void) rmdir(dir);
}

/* ---- scenarios: only inside a private mount namespace over a fixture or the emulator ---- */

static const char *state_path(void) {
        return getenv("SCHEDFREQD_TEST_ACTUATOR_STATE");
}

static bool kernel_semantics(void) {
        const char *e = getenv("SCHEDFREQD_TEST_ACTUATOR_KERNEL");

        return e && streq(e, "1");
}

/* The first bytes of a file (plain files keep stale bytes after a shorter pwrite). */
static bool file_starts_with(const char *path, const char *prefix) {
        char buf[64] = "";
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        return n >= (ssize_t) strlen(prefix) && strncmp(buf, prefix, strlen(prefix)) == 0;
}

static void attr(const char *dir, const char *name, char *buf, size_t size) {
        (void) snprintf(buf, size, "%s/%s", dir, name);
}

/* The state file holds what the topology said before the take-over. */
static void check_state_file(const Topology *t) {
        _cleanup_fclose_ FILE *f = fopen(state_path(), "re");
        _cleanup_free_ char *error = NULL;
        ActuatorSaved *s = NULL;
        size_t n = 0;

        ASSERT_TRUE(f);
        ASSERT_OK(actuator_state_parse(f, state_path(), &s, &n, &error));
        ASSERT_EQ(n, t->n_policies);
        for (size_t i = 0; i < n; i++) {
                const PolicyDesc *p = &t->policies[i];
                char path[4096];
                uint32_t setspeed = p->cur_khz;

                if (streq(p->governor, "userspace")) {
                        attr(s[i].dir, "scaling_setspeed", path, sizeof(path));
                        ASSERT_OK(cpufreq_sysfs_read_u32(path, &setspeed));
                }
                ASSERT_EQ(s[i].id, p->id);
                ASSERT_STREQ(s[i].governor, p->governor);
                ASSERT_EQ(s[i].scaling_min_khz, p->scaling_min_khz);
                ASSERT_EQ(s[i].scaling_max_khz, p->scaling_max_khz);
                ASSERT_EQ(s[i].setspeed_khz, setspeed);
        }
        actuator_saved_free_many(s, n);
}

/* Every table frequency (or min, then max, when continuous), checked through scaling_setspeed. */
static void set_each_frequency(Actuator *a, const Topology *t) {
        for (size_t i = 0; i < t->n_policies; i++) {
                const PolicyDesc *p = &t->policies[i];
                uint32_t ends[2] = { p->scaling_min_khz, p->scaling_max_khz };
                const uint32_t *f = p->n_frequencies > 0 ? p->frequencies_khz : ends;
                size_t n = p->n_frequencies > 0 ? p->n_frequencies : 2;
                _cleanup_free_ char *dir = NULL;
                char path[4096], want[16];

                ASSERT_OK(cpufreq_sysfs_policy_dir(p, &dir));
                attr(dir, "scaling_setspeed", path, sizeof(path));
                for (size_t k = 0; k < n; k++) {
                        uint32_t khz = policy_resolve_l_khz(p, p->scaling_min_khz, p->scaling_max_khz, f[k]);
                        uint32_t cur = 0;

                        ASSERT_OK(actuator_set_khz(a, (unsigned) i, f[k]));
                        (void) snprintf(want, sizeof(want), "%u\n", kernel_semantics() ? khz : f[k]);
                        if (!file_starts_with(path, want))
                                TEST_FAIL("%s does not start with %u", path, kernel_semantics() ? khz : f[k]);
                        if (kernel_semantics()) {
                                ASSERT_OK(actuator_read_khz(a, (unsigned) i, &cur));
                                ASSERT_EQ(cur, khz);
                        }
                }
        }
}

static void check_governors(const Topology *t, const char *governor) {
        for (size_t i = 0; i < t->n_policies; i++) {
                _cleanup_free_ char *dir = NULL;
                char path[4096], cur[64];

                ASSERT_OK(cpufreq_sysfs_policy_dir(&t->policies[i], &dir));
                attr(dir, "scaling_governor", path, sizeof(path));
                ASSERT_OK(cpufreq_sysfs_read(path, cur, sizeof(cur)));
                ASSERT_STREQ(cur, governor ? governor : t->policies[i].governor);
        }
}

/* Take over everything, set frequencies, put back. The script compares the tree with its snapshot. */
static void scenario_take_over_restore(void) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_(actuator_freep) Actuator *a = NULL;
        _cleanup_free_ char *error = NULL;
        int r;

        ASSERT_OK(cpufreq_discover(&t));
        r = actuator_take_over(t, NULL, state_path(), &a, &error);
        if (r < 0)
                TEST_FAIL("take over: %s: %s", error, strerror(-r));
        check_state_file(t);
        check_governors(t, "userspace");
        set_each_frequency(a, t);

        /* Pause and resume: everything back, the state file gone, then held again. */
        ASSERT_OK(actuator_restore(a));
        ASSERT_TRUE(!actuator_is_held(a));
        ASSERT_TRUE(access(state_path(), F_OK) < 0);
        ASSERT_ERROR(actuator_set_khz(a, 0, t->policies[0].scaling_max_khz), EBADF);
        check_governors(t, NULL);
        ASSERT_OK(actuator_reacquire(a, &error));
        check_state_file(t);
        set_each_frequency(a, t);

        ASSERT_OK(actuator_restore(a));
        ASSERT_TRUE(access(state_path(), F_OK) < 0);
        check_governors(t, NULL);
}

/* Take over, change frequencies, die without putting back. */
static void scenario_crash(void) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        Actuator *a = NULL;
        int r;

        ASSERT_OK(cpufreq_discover(&t));
        r = actuator_take_over(t, NULL, state_path(), &a, &error);
        if (r < 0)
                TEST_FAIL("take over: %s: %s", error, strerror(-r));
        for (size_t i = 0; i < t->n_policies; i++)
                ASSERT_OK(actuator_set_khz(a, (unsigned) i, t->policies[i].scaling_min_khz));
        printf("ok - scenario_crash\n");
        fflush(stdout);
        _exit(0);
}

/* `schedfreqd restore` after the crash: 1, then 0 (nothing left). */
static void scenario_restore_state(void) {
        _cleanup_free_ char *error = NULL;
        int r;

        r = actuator_restore_from_state_file(state_path(), false, &error);
        if (r != 1)
                TEST_FAIL("restore: %d: %s", r, error ? error : "(no message)");
        ASSERT_TRUE(access(state_path(), F_OK) < 0);
        ASSERT_EQ(actuator_restore_from_state_file(state_path(), false, &error), 0);
}

/* A policy without userspace: -EOPNOTSUPP with the fix, nothing written (the script checks the tree). */
static void scenario_no_userspace(void) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        Actuator *a = NULL;

        ASSERT_OK(cpufreq_discover(&t));
        ASSERT_ERROR(actuator_take_over(t, NULL, state_path(), &a, &error), EOPNOTSUPP);
        ASSERT_TRUE(error && strstr(error, "intel_pstate=passive"));
        ASSERT_TRUE(access(state_path(), F_OK) < 0);
}

/* The last policy cannot be taken (the script made its scaling_setspeed unopenable): the ones before are put
 * back, the state file removed, the error returned. */
static void scenario_roll_back(void) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        Actuator *a = NULL;
        int r;

        ASSERT_OK(cpufreq_discover(&t));
        r = actuator_take_over(t, NULL, state_path(), &a, &error);
        ASSERT_TRUE(r < 0);
        ASSERT_TRUE(!a);
        ASSERT_TRUE(error && strstr(error, "scaling_setspeed"));
        ASSERT_TRUE(access(state_path(), F_OK) < 0);
        check_governors(t, NULL);
}

__attribute__((constructor)) static void register_scenarios(void) {
        static const TestCase scenarios[] = {
                { "scenario_take_over_restore", scenario_take_over_restore },
                { "scenario_crash", scenario_crash },
                { "scenario_restore_state", scenario_restore_state },
                { "scenario_no_userspace", scenario_no_userspace },
                { "scenario_roll_back", scenario_roll_back },
        };

        if (!state_path())
                return;
        for (size_t i = 0; i < ELEMENTSOF(scenarios) && test_n_cases < TEST_MAX; i++)
                test_cases[test_n_cases++] = scenarios[i];
}
