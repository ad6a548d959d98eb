/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The running kernel's tick length: CONFIG_HZ from its build configuration, /proc/config.gz (CONFIG_IKCONFIG_PROC)
 * or else /boot/config-RELEASE (what Debian, Ubuntu and Fedora install beside the image). The tick is TICK_NSEC,
 * the period of the scheduler tick (sched_tick() → task_tick_fair()) and of jiffies. Nothing here logs; the
 * caller says where the value came from (kernel_hz_find()'s KernelHz).
 *
 * CONFIG_NO_HZ_IDLE and CONFIG_NO_HZ_FULL do not change the tick's length, only which CPUs take it (an idle CPU,
 * or a nohz_full CPU running one task, stops its tick): only CONFIG_HZ is read.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The model's tick when the kernel's cannot be found: CONFIG_HZ=250 (kernel/Kconfig.hz's default, Debian's). */
#define KERNEL_HZ_DEFAULT 250U

/* The CONFIG_HZ values accepted from a config file: every HZ an architecture offers lies well inside. */
#define KERNEL_HZ_MIN 10U
#define KERNEL_HZ_MAX 10000U

/* The largest config text read (decompressed): a distribution kernel's is about 280 KB. */
#define KERNEL_HZ_CONFIG_MAX (8U * 1024 * 1024)

/* TICK_NSEC for @hz: (NSEC_PER_SEC + HZ/2) / HZ (include/vdso/jiffies.h); 4000000 for 250, 3333333 for 300. */
uint64_t kernel_hz_tick_ns(unsigned hz);

/*
 * CONFIG_HZ in the config text @text of @size bytes (a .config: "CONFIG_HZ=250" lines; NUL bytes end nothing).
 * Returns HZ, or -ENODATA without a CONFIG_HZ= line ("# CONFIG_HZ is not set" is none), -EBADMSG when its value
 * is not a decimal number, -ERANGE outside [KERNEL_HZ_MIN, KERNEL_HZ_MAX]. A repeated line: the last one wins,
 * as it does when kconfig reads the file.
 */
int kernel_hz_parse(const char *text, size_t size);

/*
 * CONFIG_HZ of the config file @path, gzip-compressed (/proc/config.gz) or plain (zlib reads either). Returns HZ,
 * kernel_hz_parse()'s errors, -EBADMSG for a corrupt or truncated gzip stream, -EFBIG above KERNEL_HZ_CONFIG_MAX,
 * -ENOMEM, or open(2)'s -errno (-ENOENT: no such file).
 */
int kernel_hz_read_file(const char *path);

typedef struct KernelHz {
        unsigned hz;              /* CONFIG_HZ; KERNEL_HZ_DEFAULT when !found */
        uint64_t tick_ns;         /* kernel_hz_tick_ns(hz) */
        bool found;               /* read from a kernel config file */
        char source[PATH_MAX + 128]; /* found: that file ("/proc/config.gz"); else why not ("no kernel config found",
                                   * "/boot/config-6.1.0-18-amd64: no CONFIG_HZ line") */
} KernelHz;

/*
 * The running kernel's CONFIG_HZ: @root/proc/config.gz, then @root/boot/config-@release, the first that gives
 * one. @root NULL is "/" (tests give a directory); @release NULL is uname(2)'s. Always fills @ret (the default
 * when nothing was found). Returns 0 when found, else the first file's error (-ENOENT: neither file exists).
 */
int kernel_hz_find(const char *root, const char *release, KernelHz *ret);

/* "4 ms", "3.333 ms", "1 ms", "0.833 ms": @tick_ns in ms, at most three decimals, for messages. */
void kernel_hz_format_tick(uint64_t tick_ns, char buf[static 32]);
