/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for kernel-hz.c: CONFIG_HZ in config texts (present, absent, malformed), the files (plain, gzip, corrupt
 * gzip, missing) and the search under a scratch root (/proc/config.gz first, then /boot/config-RELEASE).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "macro.h"
#include "model.h"
#include "test.h"

static int parse(const char *text) {
        return kernel_hz_parse(text, strlen(text));
}

/* What a distribution kernel's .config says around it (Debian 12's, cut). */
#define DEBIAN_HZ \
        "# CONFIG_NO_HZ_FULL is not set\n" \
        "CONFIG_NO_HZ=y\n" \
        "# CONFIG_HZ_100 is not set\n" \
        "CONFIG_HZ_250=y\n" \
        "# CONFIG_HZ_300 is not set\n" \
        "# CONFIG_HZ_1000 is not set\n" \
        "CONFIG_HZ=250\n" \
        "CONFIG_SCHED_HRTICK=y\n"

TEST(parse_present) {
        ASSERT_EQ(parse(DEBIAN_HZ), 250);
        ASSERT_EQ(parse("CONFIG_HZ=1000"), 1000);              /* no final newline */
        ASSERT_EQ(parse("CONFIG_HZ=300\r\n"), 300);            /* CRLF */
        ASSERT_EQ(parse("CONFIG_HZ=100  \nCONFIG_X=y\n"), 100);
        ASSERT_EQ(parse("CONFIG_HZ=100\nCONFIG_HZ=1000\n"), 1000); /* the last wins, as in kconfig */
        ASSERT_EQ(parse("CONFIG_HZ=10"), 10);
        ASSERT_EQ(parse("CONFIG_HZ=10000"), 10000);
}

TEST(parse_absent) {
        ASSERT_ERROR(parse(""), ENODATA);
        ASSERT_ERROR(parse("# CONFIG_HZ is not set\n"), ENODATA);
        ASSERT_ERROR(parse("CONFIG_HZ_250=y\nCONFIG_HZ_PERIODIC=y\nCONFIG_NO_HZ_FULL=y\n"), ENODATA);
        ASSERT_ERROR(parse(" CONFIG_HZ=250\n"), ENODATA);      /* not at the line's start */
        ASSERT_ERROR(parse("XCONFIG_HZ=250\n"), ENODATA);
        ASSERT_ERROR(parse("CONFIG_HZ 250\n"), ENODATA);
        ASSERT_ERROR(kernel_hz_parse(NULL, 0), EINVAL);
}

TEST(parse_malformed) {
        static const char with_nul[] = "CONFIG_HZ=2\0" "50\n";

        ASSERT_ERROR(parse("CONFIG_HZ=\n"), EBADMSG);
        ASSERT_ERROR(parse("CONFIG_HZ=abc\n"), EBADMSG);
        ASSERT_ERROR(parse("CONFIG_HZ=250y\n"), EBADMSG);
        ASSERT_ERROR(parse("CONFIG_HZ=-250\n"), EBADMSG);
        ASSERT_ERROR(parse("CONFIG_HZ=\"250\"\n"), EBADMSG);
        ASSERT_ERROR(parse("CONFIG_HZ=9\n"), ERANGE);
        ASSERT_ERROR(parse("CONFIG_HZ=0\n"), ERANGE);
        ASSERT_ERROR(parse("CONFIG_HZ=10001\n"), ERANGE);
        ASSERT_ERROR(parse("CONFIG_HZ=99999999999999999999999\n"), ERANGE);
        /* A NUL byte ends no line: the value holds it, and is no number. */
        ASSERT_ERROR(kernel_hz_parse(with_nul, sizeof(with_nul) - 1), EBADMSG);
        /* A malformed last line wins over a good first one, as the last assignment would. */
        ASSERT_ERROR(parse("CONFIG_HZ=250\nCONFIG_HZ=x\n"), EBADMSG);
}

TEST(tick_ns) {
        ASSERT_U64_EQ(kernel_hz_tick_ns(100), 10000000);
        ASSERT_U64_EQ(kernel_hz_tick_ns(250), 4000000);
        ASSERT_U64_EQ(kernel_hz_tick_ns(300), 3333333);
        ASSERT_U64_EQ(kernel_hz_tick_ns(1000), 1000000);
        ASSERT_U64_EQ(kernel_hz_tick_ns(1024), 976563);       /* (10^9 + 512) / 1024, rounded as TICK_NSEC */
        ASSERT_U64_EQ(kernel_hz_tick_ns(0), 0);
}

TEST(format_tick) {
        char buf[32];

        kernel_hz_format_tick(4000000, buf);
        ASSERT_STREQ(buf, "4 ms");
        kernel_hz_format_tick(10000000, buf);
        ASSERT_STREQ(buf, "10 ms");
        kernel_hz_format_tick(3333333, buf);
        ASSERT_STREQ(buf, "3.333 ms");
        kernel_hz_format_tick(1000000, buf);
        ASSERT_STREQ(buf, "1 ms");
        kernel_hz_format_tick(976563, buf);
        ASSERT_STREQ(buf, "0.977 ms");
        kernel_hz_format_tick(2500000, buf);
        ASSERT_STREQ(buf, "2.5 ms");
}

/* ---- files ---- */

typedef struct Scratch {
        char dir[64];
} Scratch;

static void scratch_done(Scratch *s) {
        char cmd[128];

        if (s->dir[0] == '\0')
                return;
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
        (void) !system(cmd);
}

static int scratch_init(Scratch *s) {
        char sub[128];

        (void) snprintf(s->dir, sizeof(s->dir), "/tmp/test-kernel-hz.XXXXXX");
        if (!mkdtemp(s->dir)) {
                s->dir[0] = '\0';
                return -errno;
        }
        (void) snprintf(sub, sizeof(sub), "%s/proc", s->dir);
        if (mkdir(sub, 0755) < 0)
                return -errno;
        (void) snprintf(sub, sizeof(sub), "%s/boot", s->dir);
        if (mkdir(sub, 0755) < 0)
                return -errno;
        return 0;
}

static int write_plain(const char *dir, const char *name, const char *text) {
        char path[256];
        FILE *f;

        (void) snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        if (!f)
                return -errno;
        fputs(text, f);
        return fclose(f) == 0 ? 0 : -errno;
}

/* @text gzip-compressed into dir/name, as /proc/config.gz is (kernel/configs.c); @cut_bytes off its end. */
static int write_gz(const char *dir, const char *name, const char *text, size_t cut_bytes) {
        char path[256];
        struct stat st;
        gzFile f;

        (void) snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = gzopen(path, "wb9");
        if (!f)
                return -EIO;
        if (gzputs(f, text) < 0) {
                (void) gzclose(f);
                return -EIO;
        }
        if (gzclose(f) != Z_OK)
                return -EIO;
        if (cut_bytes == 0)
                return 0;
        if (stat(path, &st) < 0 || (size_t) st.st_size <= cut_bytes)
                return -EINVAL;
        return truncate(path, st.st_size - (off_t) cut_bytes) < 0 ? -errno : 0;
}

/* A config text large enough that a cut gzip loses a whole block of it. */
static char *big_config(unsigned hz) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        for (unsigned i = 0; i < 20000; i++)
                fprintf(f, "CONFIG_SYMBOL_%u=y\n", i);
        fprintf(f, "CONFIG_HZ=%u\n", hz);
        for (unsigned i = 0; i < 20000; i++)
                fprintf(f, "# CONFIG_OTHER_%u is not set\n", i);
        fclose(f);
        return text;
}

TEST(read_files) {
        _cleanup_(scratch_done) Scratch s = {};
        _cleanup_free_ char *big = big_config(300);
        char path[256];

        ASSERT_TRUE(big);
        ASSERT_OK(scratch_init(&s));
        ASSERT_OK(write_plain(s.dir, "plain", DEBIAN_HZ));
        ASSERT_OK(write_gz(s.dir, "config.gz", big, 0));
        ASSERT_OK(write_gz(s.dir, "cut.gz", big, 64));
        ASSERT_OK(write_plain(s.dir, "not-gz.gz", "\037\213 not really gzip\nCONFIG_HZ=250\n"));
        ASSERT_OK(write_gz(s.dir, "no-hz.gz", "CONFIG_HZ_250=y\n", 0));

        (void) snprintf(path, sizeof(path), "%s/plain", s.dir);
        ASSERT_EQ(kernel_hz_read_file(path), 250);
        (void) snprintf(path, sizeof(path), "%s/config.gz", s.dir);
        ASSERT_EQ(kernel_hz_read_file(path), 300);
        (void) snprintf(path, sizeof(path), "%s/cut.gz", s.dir);
        ASSERT_ERROR(kernel_hz_read_file(path), EBADMSG);
        (void) snprintf(path, sizeof(path), "%s/not-gz.gz", s.dir);
        ASSERT_ERROR(kernel_hz_read_file(path), EBADMSG);
        (void) snprintf(path, sizeof(path), "%s/no-hz.gz", s.dir);
        ASSERT_ERROR(kernel_hz_read_file(path), ENODATA);
        (void) snprintf(path, sizeof(path), "%s/missing", s.dir);
        ASSERT_ERROR(kernel_hz_read_file(path), ENOENT);
}

TEST(find_in_order) {
        _cleanup_(scratch_done) Scratch s = {};
        char expect[256];
        KernelHz k;

        ASSERT_OK(scratch_init(&s));

        /* Neither file: the default, and why. */
        ASSERT_ERROR(kernel_hz_find(s.dir, "6.1.0-test", &k), ENOENT);
        ASSERT_TRUE(!k.found);
        ASSERT_EQ(k.hz, 250);
        ASSERT_U64_EQ(k.tick_ns, 4000000);
        ASSERT_STREQ(k.source, "no kernel config found");

        /* /boot/config-RELEASE of this release only. */
        ASSERT_OK(write_plain(s.dir, "boot/config-6.1.0-other", "CONFIG_HZ=100\n"));
        ASSERT_ERROR(kernel_hz_find(s.dir, "6.1.0-test", &k), ENOENT);
        ASSERT_OK(write_plain(s.dir, "boot/config-6.1.0-test", "CONFIG_HZ=1000\n"));
        ASSERT_OK(kernel_hz_find(s.dir, "6.1.0-test", &k));
        ASSERT_TRUE(k.found);
        ASSERT_EQ(k.hz, 1000);
        ASSERT_U64_EQ(k.tick_ns, 1000000);
        (void) snprintf(expect, sizeof(expect), "%s/boot/config-6.1.0-test", s.dir);
        ASSERT_STREQ(k.source, expect);

        /* /proc/config.gz first: it is the running kernel's own. */
        ASSERT_OK(write_gz(s.dir, "proc/config.gz", DEBIAN_HZ, 0));
        ASSERT_OK(kernel_hz_find(s.dir, "6.1.0-test", &k));
        ASSERT_EQ(k.hz, 250);
        (void) snprintf(expect, sizeof(expect), "%s/proc/config.gz", s.dir);
        ASSERT_STREQ(k.source, expect);

        /* A /proc/config.gz without CONFIG_HZ: /boot's; without /boot's either, the default and the reason. */
        ASSERT_OK(write_gz(s.dir, "proc/config.gz", "CONFIG_HZ_250=y\n", 0));
        ASSERT_OK(kernel_hz_find(s.dir, "6.1.0-test", &k));
        ASSERT_EQ(k.hz, 1000);
        ASSERT_ERROR(kernel_hz_find(s.dir, "6.1.0-none", &k), ENODATA);
        ASSERT_TRUE(!k.found);
        ASSERT_EQ(k.hz, 250);
        (void) snprintf(expect, sizeof(expect), "%s/proc/config.gz: no CONFIG_HZ line", s.dir);
        ASSERT_STREQ(k.source, expect);
}

/* The running kernel's, whatever this machine has: consistent either way. */
TEST(find_running) {
        KernelHz k;
        int r = kernel_hz_find(NULL, NULL, &k);

        ASSERT_TRUE(r >= 0 || !k.found);
        ASSERT_TRUE(k.hz >= KERNEL_HZ_MIN && k.hz <= KERNEL_HZ_MAX);
        ASSERT_U64_EQ(k.tick_ns, kernel_hz_tick_ns(k.hz));
        fprintf(stderr, "# this kernel: CONFIG_HZ=%u (%s)\n", k.hz, k.source);
}

DEFINE_TEST_MAIN
