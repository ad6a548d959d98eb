/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The running kernel's version, from uname(2)'s release ("6.18.44-fc-v1252", "4.19.0-27-amd64",
 * "6.12.0-rc3+", "5.15.153.1-microsoft-standard-WSL2"): only MAJOR.MINOR matter to us, packed like the
 * kernel's KERNEL_VERSION(a, b, 0) so that versions compare as integers.
 */

#include <stdbool.h>

#define KERNEL_VERSION_CODE(major, minor) (((unsigned) (major) << 16) | ((unsigned) (minor) << 8))
#define KERNEL_VERSION_MAJOR(code) ((code) >> 16)
#define KERNEL_VERSION_MINOR(code) (((code) >> 8) & 0xffu)

/*
 * Parses the leading "MAJOR.MINOR" of @release (what follows — ".PATCH", "-rc3", "+", a vendor suffix — is
 * ignored). -EINVAL when it does not start with two dot-separated decimal numbers (MAJOR 1..255,
 * MINOR 0..255).
 */
int kernel_version_parse(const char *release, unsigned *ret_code);

/* The running kernel's version (uname(2), read once). -errno from uname, or -EINVAL from the parser. */
int kernel_version_running(unsigned *ret_code);
