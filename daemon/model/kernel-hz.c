/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel-hz.c: CONFIG_HZ of the running kernel from its build configuration (include/model.h). Parsing is
 * separate from reading, so the tests feed config texts; zlib reads /proc/config.gz and, in its transparent mode,
 * a plain /boot/config-* the same way.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "macro.h"
#include "model.h"

#define NSEC_PER_SEC_U64 UINT64_C(1000000000)

uint64_t kernel_hz_tick_ns(unsigned hz) {
        /* TICK_NSEC, rounded to nearest as the kernel rounds it (include/vdso/jiffies.h). */
        return hz > 0 ? (NSEC_PER_SEC_U64 + hz / 2) / hz : 0;
}

/* The value of a "CONFIG_HZ=" line, @p at its first byte and @end at the line's end. */
static int parse_hz_value(const char *p, const char *end) {
        uint64_t v = 0;

        /* kconfig writes no spaces; a '\r' of a file edited elsewhere is tolerated, and trailing blanks. */
        while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
                end--;
        if (p == end)
                return -EBADMSG;
        for (; p < end; p++) {
                if (*p < '0' || *p > '9')
                        return -EBADMSG;
                v = v * 10 + (uint64_t) (*p - '0');
                if (v > KERNEL_HZ_MAX)
                        return -ERANGE;
        }
        return v < KERNEL_HZ_MIN ? -ERANGE : (int) v;
}

int kernel_hz_parse(const char *text, size_t size) {
        static const char key[] = "CONFIG_HZ=";
        const char *p, *end;
        int hz = -ENODATA;

        if (!text)
                return -EINVAL;
        p = text;
        end = text + size;
        while (p < end) {
                const char *eol = memchr(p, '\n', (size_t) (end - p));

                if (!eol)
                        eol = end;
                /* Not CONFIG_HZ_250=y, CONFIG_HZ_PERIODIC or a comment: the exact key at the line's start. */
                if ((size_t) (eol - p) >= sizeof(key) - 1 && memcmp(p, key, sizeof(key) - 1) == 0)
                        hz = parse_hz_value(p + sizeof(key) - 1, eol);
                p = eol + (eol < end);
        }
        return hz;
}

static void gzclosep(gzFile *f) {
        if (*f)
                (void) gzclose(*f);
}

/* The whole (decompressed) text of @path, malloc'd, in *@ret and *@ret_size. */
static int read_config_text(const char *path, char **ret, size_t *ret_size) {
        _cleanup_(gzclosep) gzFile f = NULL;
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, allocated = 0;
        int fd, n, errnum;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        f = gzdopen(fd, "rb");
        if (!f) {
                (void) close(fd);
                return -ENOMEM;
        }
        for (;;) {
                if (allocated - size < 64 * 1024) {
                        char *grown;

                        if (allocated >= KERNEL_HZ_CONFIG_MAX)
                                return -EFBIG;
                        allocated = allocated ? allocated * 2 : 256 * 1024;
                        grown = realloc(buf, allocated);
                        if (!grown)
                                return -ENOMEM;
                        buf = grown;
                }
                n = gzread(f, buf + size, (unsigned) (allocated - size));
                if (n < 0)
                        return -EBADMSG;
                if (n == 0)
                        break;
                size += (size_t) n;
        }
        /* A gzip stream cut short reads as an end of file, with Z_BUF_ERROR (zlib.h, gzread()). */
        (void) gzerror(f, &errnum);
        if (errnum != Z_OK)
                return errnum == Z_ERRNO ? -EIO : -EBADMSG;
        if (size > KERNEL_HZ_CONFIG_MAX)
                return -EFBIG;
        *ret = TAKE_PTR(buf);
        *ret_size = size;
        return 0;
}

int kernel_hz_read_file(const char *path) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        int r;

        r = read_config_text(path, &text, &size);
        if (r < 0)
                return r;
        return kernel_hz_parse(text, size);
}

static const char *hz_error(int r) {
        switch (r) {
        case -ENODATA:
                return "no CONFIG_HZ line";
        case -EBADMSG:
                return "malformed (a corrupt gzip stream, or CONFIG_HZ not a number)";
        case -ERANGE:
                return "CONFIG_HZ out of range";
        default:
                return strerror(-r);
        }
}

int kernel_hz_find(const char *root, const char *release, KernelHz *ret) {
        struct utsname u;
        int first_r = -ENOENT, r;

        *ret = (KernelHz) { .hz = KERNEL_HZ_DEFAULT, .tick_ns = kernel_hz_tick_ns(KERNEL_HZ_DEFAULT) };
        snprintf(ret->source, sizeof(ret->source), "no kernel config found");
        if (!release) {
                if (uname(&u) < 0)
                        return -errno;
                release = u.release;
        }
        if (!root || streq(root, "/"))
                root = "";

        /* The running kernel's own first (CONFIG_IKCONFIG_PROC), then the file its package installed. */
        for (unsigned i = 0; i < 2; i++) {
                char path[PATH_MAX];

                if (i == 0)
                        (void) snprintf(path, sizeof(path), "%s/proc/config.gz", root);
                else
                        (void) snprintf(path, sizeof(path), "%s/boot/config-%s", root, release);
                r = kernel_hz_read_file(path);
                if (r > 0) {
                        ret->hz = (unsigned) r;
                        ret->tick_ns = kernel_hz_tick_ns(ret->hz);
                        ret->found = true;
                        (void) snprintf(ret->source, sizeof(ret->source), "%s", path);
                        return 0;
                }
                /* The first file that exists but says nothing usable is the reason given. */
                if (r != -ENOENT && first_r == -ENOENT) {
                        first_r = r;
                        (void) snprintf(ret->source, sizeof(ret->source), "%s: %s", path, hz_error(r));
                }
        }
        return first_r;
}

void kernel_hz_format_tick(uint64_t tick_ns, char buf[static 32]) {
        uint64_t us = (tick_ns + 500) / 1000;
        int n;

        n = snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
        /* Trailing zeros, and the point if nothing follows it. */
        while (n > 0 && buf[n - 1] == '0')
                buf[--n] = '\0';
        if (n > 0 && buf[n - 1] == '.')
                buf[--n] = '\0';
        (void) snprintf(buf + n, (size_t) (32 - n), " ms");
}
