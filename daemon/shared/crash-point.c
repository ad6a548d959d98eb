/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crash-point.c: SCHEDFREQD_CRASH_AT, the test-only way to make the daemon die at a named place (see
 * include/crash-point.h). Single-threaded like the daemon's loop: no locking.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "crash-point.h"
#include "log.h"
#include "string-util.h"

#define CRASH_AT_ENV "SCHEDFREQD_CRASH_AT"
#define CRASH_POINT_NAME_MAX 64

CrashPointState crash_point_state = CRASH_POINT_UNKNOWN;

static char armed_name[CRASH_POINT_NAME_MAX];
static unsigned armed_n, passed;
static int armed_signal;

/* "SEGV", "SIGSEGV" or "11": the signal number, or -EINVAL. */
static int signal_from_string(const char *s) {
        uint32_t v;

        if (strncmp(s, "SIG", 3) == 0)
                s += 3;
        if (parse_u32_line(s, &v) >= 0)
                return v > 0 && v < (uint32_t) NSIG ? (int) v : -EINVAL;
        for (int sig = 1; sig < NSIG; sig++) {
                const char *abbrev = sigabbrev_np(sig);

                if (abbrev && streq(s, abbrev))
                        return sig;
        }
        return -EINVAL;
}

int crash_point_parse(const char *spec, char *name, size_t size, unsigned *ret_n, int *ret_signal) {
        const char *colon = strrchr(spec, ':'), *hash;
        size_t len;
        uint32_t n = 1;
        int sig;

        /* The signal after the last ':' (names contain ':' themselves: "take-over:switched"). */
        if (!colon)
                return -EINVAL;
        sig = signal_from_string(colon + 1);
        if (sig < 0)
                return sig;

        len = (size_t) (colon - spec);
        hash = memchr(spec, '#', len);
        if (hash) {
                char count[16];
                size_t count_len = (size_t) (colon - hash - 1);

                if (count_len == 0 || count_len >= sizeof(count))
                        return -EINVAL;
                memcpy(count, hash + 1, count_len);
                count[count_len] = '\0';
                if (parse_u32_line(count, &n) < 0 || n == 0)
                        return -EINVAL;
                len = (size_t) (hash - spec);
        }
        if (len == 0 || len >= size)
                return -EINVAL;
        memcpy(name, spec, len);
        name[len] = '\0';
        *ret_n = n;
        *ret_signal = sig;
        return 0;
}

static void crash_point_init(void) {
        const char *spec = secure_getenv(CRASH_AT_ENV);

        crash_point_state = CRASH_POINT_OFF;
        if (!spec || !spec[0])
                return;
        if (crash_point_parse(spec, armed_name, sizeof(armed_name), &armed_n, &armed_signal) < 0) {
                log_warning("%s=%s is not NAME[#N]:SIGNAL, ignoring.", CRASH_AT_ENV, spec);
                return;
        }
        crash_point_state = CRASH_POINT_ARMED;
}

void crash_point_slow(const char *name) {
        if (crash_point_state == CRASH_POINT_UNKNOWN)
                crash_point_init();
        if (crash_point_state != CRASH_POINT_ARMED || !streq(name, armed_name) || ++passed != armed_n)
                return;

        /* Once: a handled or blocked signal lets the daemon go on, and it must not fire again. */
        crash_point_state = CRASH_POINT_OFF;
        log_notice("Crash point %s#%u: raising SIG%s (%s).", name, passed, sigabbrev_np(armed_signal), CRASH_AT_ENV);
        (void) raise(armed_signal);
}
