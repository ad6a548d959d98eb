/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <sys/types.h>

/* Creates every missing directory above @path (not @path itself) with @mode: 0, or a negative errno. */
int mkdir_parents(const char *path, mode_t mode);
