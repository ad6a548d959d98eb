/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kernel-version.c: MAJOR.MINOR of a kernel release string and of the running kernel. */

#include <errno.h>
#include <stdint.h>
#include <sys/utsname.h>

#include "kernel-version.h"

/* Decimal digits at *@s, at most @max; advances *@s. */
static int parse_number(const char **s, unsigned max, unsigned *ret) {
        unsigned v = 0;
        const char *p = *s;

        if (*p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                v = v * 10 + (unsigned) (*p - '0');
                if (v > max)
                        return -EINVAL;
        }
        *s = p;
        *ret = v;
        return 0;
}

int kernel_version_parse(const char *release, unsigned *ret_code) {
        unsigned major, minor;
        const char *s = release;

        if (!s || parse_number(&s, 255, &major) < 0 || major == 0 || *s++ != '.' ||
            parse_number(&s, 255, &minor) < 0)
                return -EINVAL;
        *ret_code = KERNEL_VERSION_CODE(major, minor);
        return 0;
}

int kernel_version_running(unsigned *ret_code) {
        static unsigned cached;
        static int cached_r = 1;
        struct utsname u;

        if (cached_r > 0) {
                if (uname(&u) < 0)
                        cached_r = -errno;
                else
                        cached_r = kernel_version_parse(u.release, &cached);
        }
        if (cached_r < 0)
                return cached_r;
        *ret_code = cached;
        return 0;
}
