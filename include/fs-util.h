/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Creates every missing directory above @path (not @path itself) with @mode: 0, or a negative errno. */
int mkdir_parents(const char *path, mode_t mode);

/*
 * Reads the small file @name under @dir_fd (AT_FDCWD: a path) into @buf, NUL-terminated, its trailing newline
 * removed: a sysfs or debugfs attribute, read whole in one read(). -EFBIG when it does not fit @size (>= 2).
 */
int read_small_file_at(int dir_fd, const char *name, char *buf, size_t size);
