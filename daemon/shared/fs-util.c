/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs-util.c: see include/fs-util.h. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"

int mkdir_parents(const char *path, mode_t mode) {
        _cleanup_free_ char *p = strdup(path);

        if (!p)
                return -ENOMEM;
        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        return 0;
}

int read_small_file_at(int dir_fd, const char *name, char *buf, size_t size) {
        _cleanup_close_ int fd = -EBADF;
        ssize_t n;

        if (size < 2)
                return -EINVAL;
        fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        /* sysfs and debugfs hand out the whole attribute (<= PAGE_SIZE) in the first read (fs/sysfs/file.c). */
        n = read(fd, buf, size);
        if (n < 0)
                return -errno;
        if ((size_t) n >= size)
                return -EFBIG;
        buf[n] = '\0';
        if (n > 0 && buf[n - 1] == '\n')
                buf[n - 1] = '\0';
        return 0;
}
