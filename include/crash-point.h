/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Crash points: named places in the daemon where a test can make it die (tests/integration/test-kills.sh,
 * docs/reliability.md "Kills"), to check that `schedfreqd restore` puts every policy back whatever the moment.
 *
 *   SCHEDFREQD_CRASH_AT="NAME[#N]:SIGNAL"     e.g. "take-over:switched#2:SEGV", "restore:put-back:KILL"
 *
 * makes the daemon raise(SIGNAL) (a name as in kill -l, with or without "SIG", or a number) the N-th time
 * (default: the first) it passes crash_point("NAME"). What follows is what that signal does to the daemon at
 * that moment: SEGV, ABRT, KILL, ... end it there, like a crash; TERM, INT, HUP are blocked once the event loop
 * exists (signalfd) and are then handled at its next iteration, like a signal arriving exactly there. A line
 * "Crash point NAME#N: raising SIGX" is logged (notice) just before, so that a test can tell the point was
 * reached. An unparsable value is logged once and ignored.
 *
 * Compiled into every build: the binary tested is the binary shipped. The variable is read once, at the first
 * crash_point(), with secure_getenv() (ignored in a set-user-ID or file-capability context); only whoever sets
 * the service's environment, i.e. root, can set it, and root can kill the daemon anyway. Unset, a crash point
 * costs a load and a predicted branch (the cached flag below).
 *
 * The points (docs/reliability.md "Kills"):
 *   start-up                  config loaded, tracepoints open, nothing changed yet (manager.c)
 *   take-over:state-written   the state file is on disk, no policy switched yet (actuator.c, actuator_acquire())
 *   take-over:switched        after each policy switched to userspace (actuator.c)
 *   take-over:done            every policy taken over, before READY=1 (manager.c)
 *   reload                    midway through a reload: engine reconfigured, perf not yet (manager.c)
 *   restore:governor          a policy's governor written back, its rate limit and setspeed not yet (actuator.c,
 *                             policy_put_back(): pause, shutdown, and `schedfreqd restore` itself)
 *   restore:put-back          after each policy put back (actuator.c, actuator_restore()): pause and shutdown
 *   restore:remove            every policy back, just before the state file is removed (actuator.c)
 * A resume takes over again through actuator_acquire(): with P policies, "take-over:switched#(P+1)" is a
 * resume's first switch. A pause and the shutdown both restore: "restore:put-back#1" is the first policy
 * back in whichever comes first.
 */

#include <stddef.h>

#include "macro.h"

typedef enum CrashPointState {
        CRASH_POINT_UNKNOWN,      /* the variable not read yet */
        CRASH_POINT_OFF,
        CRASH_POINT_ARMED,
} CrashPointState;

extern CrashPointState crash_point_state;

void crash_point_slow(const char *name);

static inline void crash_point(const char *name) {
        if (_unlikely_(crash_point_state != CRASH_POINT_OFF))
                crash_point_slow(name);
}

/* Parses "NAME[#N]:SIGNAL" into @name (of @size bytes), @ret_n (>= 1) and @ret_signal. 0 or -EINVAL. */
int crash_point_parse(const char *spec, char *name, size_t size, unsigned *ret_n, int *ret_signal);
