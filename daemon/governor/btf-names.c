/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btf-names.c: see daemon/governor/btf-names.h. */

#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf-names.h"
#include "macro.h"

/* A name is a whole string when a NUL comes before it (the section starts with one) and after it. */
static bool strings_have_name(const char *strings, size_t len, const char *name) {
        size_t name_len = strlen(name);
        const char *end = strings + len;

        for (const char *p = strings; p < end; p++) {
                p = memmem(p, (size_t) (end - p), name, name_len);
                if (!p)
                        return false;
                if (p > strings && p[-1] == '\0' && p + name_len < end && p[name_len] == '\0')
                        return true;
        }
        return false;
}

void btf_strings_have_names(const char *strings, size_t len, const char *const *names, size_t n, bool *ret_found) {
        for (size_t i = 0; i < n; i++)
                ret_found[i] = strings_have_name(strings, len, names[i]);
}

/* sysfs hands a binary attribute out a page per read (fs/kernfs/file.c kernfs_file_read_iter()): loop. */
static int pread_full(int fd, void *buf, size_t size, off_t offset) {
        size_t done = 0;

        while (done < size) {
                ssize_t k = pread(fd, (char *) buf + done, size - done, offset + (off_t) done);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return -EINVAL; /* the file ends inside the section its header names */
                done += (size_t) k;
        }
        return 0;
}

int btf_file_has_names(const char *path, const char *const *names, size_t n, bool *ret_found) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *strings = NULL;
        struct btf_header h;
        int r;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = pread_full(fd, &h, sizeof(h), 0);
        if (r < 0)
                return r;
        if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) || h.str_len == 0)
                return -EINVAL;
        strings = malloc(h.str_len);
        if (!strings)
                return -ENOMEM;
        r = pread_full(fd, strings, h.str_len, (off_t) h.hdr_len + (off_t) h.str_off);
        if (r < 0)
                return r;
        btf_strings_have_names(strings, h.str_len, names, n, ret_found);
        return 0;
}
