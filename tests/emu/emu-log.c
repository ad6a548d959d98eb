/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * emu-log.c: the write log, one line per event, so a test can read the file while the emulator runs:
 *
 *   <CLOCK_MONOTONIC ns> <path below the mount root> <value> <ok|EINVAL|EACCES|...>   a write (a refused open
 *                                                                                  for writing: empty value)
 *   <CLOCK_MONOTONIC ns> <path> <value> <EBUSY|EIO|...> injected                     a write (or an open for
 *                                                                                  writing) that a rule of
 *                                                                                  .emu-faults failed
 *   <CLOCK_MONOTONIC ns> cpufreq/policyN/scaling_cur_freq <kHz> set                  policy->cur changed
 *
 * An injected failure keeps the first four fields, so parsers reading $4 (or matching " ok$", " set$")
 * see a failed write; " EINVAL$" and the like match the kernel's own refusals only.
 *
 * The value is what was written without one trailing newline; spaces are kept, other bytes outside
 * printable ASCII (and the backslash) appear as \xNN so that a line stays a line.
 *
 * A write's line carries the time the store began and comes first; the frequency change it caused follows,
 * in the same write(2) on the O_APPEND fd, so a reader never sees half a line or an effect before its cause.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu.h"
#include "macro.h"
#include "time-util.h"

/* Appends @value escaped; returns the new length. @buf has room for 4 bytes per input byte. */
static size_t escape(char *buf, size_t len, const char *value, size_t n) {
        static const char hex[] = "0123456789abcdef";

        if (n > 0 && value[n - 1] == '\n')
                n--;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) value[i];

                if (c >= 0x20 && c < 0x7f && c != '\\') {
                        buf[len++] = (char) c;
                        continue;
                }
                buf[len++] = '\\';
                buf[len++] = 'x';
                buf[len++] = hex[c >> 4];
                buf[len++] = hex[c & 15];
        }
        return len;
}

/* Formats one line into @buf (of at least EMU_PAGE_SIZE * 4 + 512 bytes); returns its length. */
static size_t format_line(char *buf, size_t size, uint64_t ns, const char *path, const char *value, size_t n,
                          const char *result) {
        size_t len;
        int r;

        n = MIN(n, (size_t) EMU_PAGE_SIZE);
        r = snprintf(buf, 256, "%" PRIu64 " %.200s ", ns, path);
        len = escape(buf, (size_t) CLAMP(r, 0, 255), value, n);
        r = snprintf(buf + len, size - len, " %s\n", result);
        return len + (size_t) MAX(r, 0);
}

static void log_flush(Emu *e, const char *buf, size_t len) {
        /* A short or failed write can only be ignored: the emulator must keep serving. */
        if (e->log_fd >= 0 && len > 0)
                (void) !write(e->log_fd, buf, len);
}

void emu_log_store_begin(Emu *e) {
        e->log_deferring = true;
        e->log_store_ns = monotonic_ns();
        e->log_deferred_len = 0;
}

void emu_log_write(Emu *e, const char *path, const char *value, size_t len, int error, bool injected) {
        char buf[EMU_PAGE_SIZE * 4 + 512 + sizeof(e->log_deferred)];
        const char *result = "ok";
        char name[64];
        size_t n;

        if (error != 0)
                result = strerrorname_np(error < 0 ? -error : error) ?: "EUNKNOWN";
        if (error != 0 && injected) {
                (void) snprintf(name, sizeof(name), "%s injected", result);
                result = name;
        }

        n = format_line(buf, sizeof(buf) - sizeof(e->log_deferred),
                        e->log_deferring ? e->log_store_ns : monotonic_ns(), path, value, len, result);
        memcpy(buf + n, e->log_deferred, e->log_deferred_len);
        n += e->log_deferred_len;

        e->log_deferring = false;
        e->log_deferred_len = 0;
        log_flush(e, buf, n);
}

void emu_log_cur(Emu *e, const EmuPolicy *p) {
        char path[64], value[16], line[256];
        size_t n;
        int k;

        (void) snprintf(path, sizeof(path), "cpufreq/policy%u/scaling_cur_freq", p->desc->id);
        k = snprintf(value, sizeof(value), "%" PRIu32, p->cur_khz);
        n = format_line(line, sizeof(line), monotonic_ns(), path, value, (size_t) MAX(k, 0), "set");

        if (e->log_deferring && e->log_deferred_len + n <= sizeof(e->log_deferred)) {
                memcpy(e->log_deferred + e->log_deferred_len, line, n);
                e->log_deferred_len += n;
                return;
        }
        log_flush(e, line, n);
}
