/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for btf-names.c: whole strings only (not a prefix, a suffix or the middle of another), in a string
 * section; the file's header (magic, lengths) checked, its string section found through hdr_len and str_off,
 * a truncated file refused; and, where the running kernel has BTF, the tracepoints bpf-events.c looks for.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf-names.h"
#include "macro.h"
#include "test.h"

/* A string section as BTF has it: a NUL first, then NUL-terminated strings. */
static const char STRINGS[] = "\0int\0btf_trace_sched_switch\0btf_trace_sched_wakeup_new\0pelt_cfs_tp_x";

TEST(whole_strings_only) {
        const char *names[] = { "btf_trace_sched_switch", "btf_trace_sched_wakeup", "int", "nt", "pelt_cfs_tp_x",
                                "trace_sched_switch" };
        bool found[ELEMENTSOF(names)];

        /* sizeof - 1: the literal's own final NUL is not in the section, so the last string is unterminated. */
        btf_strings_have_names(STRINGS, sizeof(STRINGS) - 1, names, ELEMENTSOF(names), found);
        ASSERT_TRUE(found[0]);
        ASSERT_TRUE(!found[1]); /* only the prefix of btf_trace_sched_wakeup_new */
        ASSERT_TRUE(found[2]);
        ASSERT_TRUE(!found[3]); /* the end of "int" */
        ASSERT_TRUE(!found[4]); /* not NUL-terminated: the section ends inside it */
        ASSERT_TRUE(!found[5]); /* the middle of another */
}

/* A BTF file: the header, @gap bytes of "types", the strings; @truncate bytes cut off the end. */
static int write_btf(char *path, uint16_t magic, size_t gap, size_t truncate) {
        struct btf_header h = {
                .magic = magic, .version = 1, .hdr_len = sizeof(h),
                .type_off = 0, .type_len = (uint32_t) gap,
                .str_off = (uint32_t) gap, .str_len = sizeof(STRINGS) - 1,
        };
        char zeros[64] = {};
        int fd = mkstemp(path);
        size_t total = sizeof(h) + gap + sizeof(STRINGS) - 1;
        char buf[512];

        if (fd < 0 || gap > sizeof(zeros) || total > sizeof(buf))
                return -EINVAL;
        memcpy(buf, &h, sizeof(h));
        memcpy(buf + sizeof(h), zeros, gap);
        memcpy(buf + sizeof(h) + gap, STRINGS, sizeof(STRINGS) - 1);
        if (write(fd, buf, total - truncate) != (ssize_t) (total - truncate)) {
                (void) close(fd);
                return -EIO;
        }
        return close(fd) < 0 ? -errno : 0;
}

TEST(file) {
        const char *names[] = { "btf_trace_sched_switch", "btf_trace_pelt_cfs_tp" };
        char path[] = "/tmp/test-btf-names.XXXXXX";
        bool found[2] = { false, true };

        ASSERT_OK(write_btf(path, BTF_MAGIC, 16, 0));
        ASSERT_OK(btf_file_has_names(path, names, 2, found));
        ASSERT_TRUE(found[0] && !found[1]);
        (void) unlink(path);

        strcpy(path, "/tmp/test-btf-names.XXXXXX");
        ASSERT_OK(write_btf(path, 0x9FEB, 16, 0)); /* the other byte order */
        ASSERT_ERROR(btf_file_has_names(path, names, 2, found), EINVAL);
        (void) unlink(path);

        strcpy(path, "/tmp/test-btf-names.XXXXXX");
        ASSERT_OK(write_btf(path, BTF_MAGIC, 16, 5)); /* cut inside the strings */
        ASSERT_ERROR(btf_file_has_names(path, names, 2, found), EINVAL);
        (void) unlink(path);

        ASSERT_ERROR(btf_file_has_names("/nonexistent/vmlinux", names, 2, found), ENOENT);
}

/* The running kernel, where it has BTF: every tracepoint the BPF source attaches to on 6.x kernels, and no
 * name it cannot have. */
TEST(vmlinux) {
        const char *names[] = { "btf_trace_sched_switch", "btf_trace_sched_wakeup", "btf_trace_no_such_tp_x" };
        bool found[3];

        if (access("/sys/kernel/btf/vmlinux", R_OK) < 0) {
                printf("# no readable /sys/kernel/btf/vmlinux, skipped\n");
                return;
        }
        ASSERT_OK(btf_file_has_names("/sys/kernel/btf/vmlinux", names, 3, found));
        ASSERT_TRUE(found[0] && found[1] && !found[2]);
}

DEFINE_TEST_MAIN;
