/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/events/trace-dat-pages.c: the page layout of a version 6 .dat, from headers built here as
 * trace-cmd writes them (tracecmd/trace-output.c), and the files whose records must come through libtracecmd
 * instead (-EOPNOTSUPP).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "test.h"
#include "trace-dat-pages.h"

#define PAGE 4096u

/* trace-cmd option ids (enum tracecmd_option_id) used below. */
#define OPT_DATE 1
#define OPT_BUFFER 3
#define OPT_TRACECLOCK 4
#define OPT_OFFSET 7
#define OPT_CPUCOUNT 8
#define OPT_TSC2NSEC 14

typedef struct DatFile {
        char buf[8192];
        size_t n;
} DatFile;

static void put(DatFile *f, const void *p, size_t n) {
        if (f->n + n <= sizeof(f->buf))
                memcpy(f->buf + f->n, p, n);
        f->n += n;
}

static void put_u16(DatFile *f, uint16_t v) {
        put(f, &v, sizeof(v));
}

static void put_u32(DatFile *f, uint32_t v) {
        put(f, &v, sizeof(v));
}

static void put_u64(DatFile *f, uint64_t v) {
        put(f, &v, sizeof(v));
}

/* Everything up to the CPU count: @version "6", little-endian unless @big, 8-byte longs, 4 KiB pages. */
static void put_headers(DatFile *f, const char *version, bool big, uint32_t cpus) {
        uint8_t endian = big, long_size = 8;

        put(f, "\027\010\104tracing", 10);
        put(f, version, strlen(version) + 1);
        put(f, &endian, 1);
        put(f, &long_size, 1);
        put_u32(f, PAGE);
        put(f, "header_page", 12);
        put_u64(f, 3);
        put(f, "abc", 3);
        put(f, "header_event", 13);
        put_u64(f, 0);
        put_u32(f, 1);           /* one ftrace format */
        put_u64(f, 2);
        put(f, "xy", 2);
        put_u32(f, 1);           /* one event system, "sched", with one format */
        put(f, "sched", 6);
        put_u32(f, 1);
        put_u64(f, 4);
        put(f, "fmt!", 4);
        put_u32(f, 5);           /* kallsyms */
        put(f, "0 T x", 5);
        put_u32(f, 0);           /* printk */
        put_u64(f, 6);           /* cmdlines */
        put(f, "1 init", 6);
        put_u32(f, cpus);
}

static void put_option(DatFile *f, uint16_t id, const void *data, uint32_t size) {
        put_u16(f, id);
        put_u32(f, size);
        put(f, data, size);
}

/* The file, with room for data up to @size bytes, on a temporary fd (closed by the caller). */
static int dat_fd(const DatFile *f, uint64_t size) {
        FILE *tmp = tmpfile();
        int fd;

        if (!tmp)
                return -errno;
        fd = dup(fileno(tmp));
        if (fd < 0 || write(fd, f->buf, f->n) != (ssize_t) f->n || ftruncate(fd, (off_t) MAX(size, f->n)) < 0) {
                (void) fclose(tmp);
                if (fd >= 0)
                        (void) close(fd);
                return -EIO;
        }
        (void) fclose(tmp);
        return fd;
}

static int layout_of(const DatFile *f, uint64_t size, DatLayout *ret) {
        int fd = dat_fd(f, size), r;

        if (fd < 0)
                return fd;
        r = dat_layout_read(fd, ret);
        (void) close(fd);
        return r;
}

TEST(top_buffer) {
        DatFile f = {};
        DatLayout l = {};

        put_headers(&f, "6", false, 2);
        put(&f, "options  ", 10);
        put_option(&f, OPT_TRACECLOCK, "[local] global", 15);
        put_u16(&f, 0);
        put(&f, "flyrecord", 10);
        put_u64(&f, 2 * PAGE);
        put_u64(&f, 3 * PAGE);
        put_u64(&f, 5 * PAGE);
        put_u64(&f, 0);          /* CPU 1 recorded nothing */
        ASSERT_OK(layout_of(&f, 5 * PAGE, &l));
        ASSERT_EQ(l.page_size, PAGE);
        ASSERT_EQ(l.long_size, 8);
        ASSERT_EQ(l.n_buffers, 1);
        ASSERT_EQ(l.buffers[0].n_cpus, 2);
        ASSERT_U64_EQ(l.buffers[0].cpus[0].offset, 2 * PAGE);
        ASSERT_U64_EQ(l.buffers[0].cpus[0].size, 3 * PAGE);
        ASSERT_U64_EQ(l.buffers[0].cpus[1].size, 0);
        dat_layout_done(&l);
}

/* trace-cmd record -B NAME: the top buffer empty, the instance's table at its BUFFER option's offset. */
TEST(instance) {
        DatFile f = {};
        DatLayout l = {};
        uint8_t opt[8 + 5];
        uint64_t at;

        put_headers(&f, "6", false, 1);
        put(&f, "options  ", 10);
        at = 2 * PAGE - 32;
        memcpy(opt, &at, 8);
        memcpy(opt + 8, "inst", 5);
        put_option(&f, OPT_BUFFER, opt, sizeof(opt));
        put_u16(&f, 0);
        put(&f, "flyrecord", 10);
        put_u64(&f, 2 * PAGE);
        put_u64(&f, 0);
        while (f.n < at)
                put(&f, "", 1);
        put(&f, "flyrecord", 10);
        put_u64(&f, 2 * PAGE);
        put_u64(&f, 4 * PAGE);
        ASSERT_OK(layout_of(&f, 6 * PAGE, &l));
        ASSERT_EQ(l.n_buffers, 2);
        ASSERT_U64_EQ(l.buffers[0].cpus[0].size, 0);
        ASSERT_EQ(l.buffers[1].n_cpus, 1);
        ASSERT_U64_EQ(l.buffers[1].cpus[0].offset, 2 * PAGE);
        ASSERT_U64_EQ(l.buffers[1].cpus[0].size, 4 * PAGE);
        dat_layout_done(&l);
}

/* A file with @option (and a valid top table) is left to libtracecmd. */
static int with_option(uint16_t id, const void *data, uint32_t size) {
        DatFile f = {};
        DatLayout l = {};
        int r;

        put_headers(&f, "6", false, 1);
        put(&f, "options  ", 10);
        put_option(&f, id, data, size);
        put_u16(&f, 0);
        put(&f, "flyrecord", 10);
        put_u64(&f, PAGE);
        put_u64(&f, PAGE);
        r = layout_of(&f, 2 * PAGE, &l);
        dat_layout_done(&l);
        return r;
}

TEST(options_that_change_records) {
        uint8_t tsc[16] = {};
        uint32_t cpus = 4;

        ASSERT_OK(with_option(OPT_TRACECLOCK, "[local]", 8));
        /* libtracecmd adds these to every timestamp, scales them, or changes the CPU count */
        ASSERT_ERROR(with_option(OPT_DATE, "0x10", 5), EOPNOTSUPP);
        ASSERT_ERROR(with_option(OPT_OFFSET, "100", 4), EOPNOTSUPP);
        ASSERT_ERROR(with_option(OPT_TSC2NSEC, tsc, sizeof(tsc)), EOPNOTSUPP);
        ASSERT_ERROR(with_option(OPT_CPUCOUNT, &cpus, sizeof(cpus)), EOPNOTSUPP);
        ASSERT_ERROR(with_option(999, "", 1), EOPNOTSUPP);
}

TEST(not_version_6_pages) {
        DatFile f = {};
        DatLayout l = {};

        put_headers(&f, "7", false, 1);
        ASSERT_ERROR(layout_of(&f, PAGE, &l), EOPNOTSUPP);

        f = (DatFile) {};
        put_headers(&f, "6", true, 1);
        ASSERT_ERROR(layout_of(&f, PAGE, &l), EOPNOTSUPP);

        f = (DatFile) {};
        put_headers(&f, "6", false, 1);
        put(&f, "latency  ", 10);
        ASSERT_ERROR(layout_of(&f, PAGE, &l), EOPNOTSUPP);
}

TEST(pages_outside_the_file) {
        DatFile f = {};
        DatLayout l = {};

        put_headers(&f, "6", false, 1);
        put(&f, "flyrecord", 10);
        put_u64(&f, PAGE + 8);   /* not on a page boundary */
        put_u64(&f, PAGE);
        ASSERT_ERROR(layout_of(&f, 3 * PAGE, &l), EOPNOTSUPP);

        f = (DatFile) {};
        put_headers(&f, "6", false, 1);
        put(&f, "flyrecord", 10);
        put_u64(&f, PAGE);
        put_u64(&f, 8 * PAGE);   /* beyond the end */
        ASSERT_ERROR(layout_of(&f, 3 * PAGE, &l), EOPNOTSUPP);

        /* cut inside the headers */
        f = (DatFile) {};
        put_headers(&f, "6", false, 1);
        f.n -= 6;
        ASSERT_ERROR(layout_of(&f, 0, &l), EOPNOTSUPP);
}

DEFINE_TEST_MAIN
