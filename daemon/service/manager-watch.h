/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The daemon's eye on the policies it governs, which others may change under it (sysfs cannot notify): their
 * scaling limits (followed), their governor (another tool switching it away releases the policy to that tool),
 * and whether they are there at all (all CPUs offline: EBUSY). Reads at the wake-ups that happen anyway, at
 * most once a second and only while some CPU is busy, through kept-open fds; and at every failed write.
 * The states are actuator.h's; the manager holds them (Governed.health), the bus shows them. The manager
 * lends the governed policies (governed.h) at each call; what the watch keeps of its own is a PolicyWatch.
 */

#include <stdint.h>

#include "governed.h"

typedef struct PolicyWatch {
        int *fds;                      /* per policy: its watched files, kept open; -EBADF = not yet */
        uint64_t checked_usec;         /* CLOCK_MONOTONIC of the last manager_watch_poll() reading */
} PolicyWatch;

/* After each wake-up of the loop (manager.c on_post()). */
void manager_watch_poll(Governed *g, PolicyWatch *w, uint64_t now_usec);

/* A scaling_setspeed write of policy @i failed with @error / succeeded (on the hot path: cheap unless the
 * policy was not governed). */
void manager_watch_write_failed(Governed *g, unsigned i, int error, uint64_t now_usec);
void manager_watch_write_succeeded(Governed *g, unsigned i, uint64_t now_usec);

/* @cpu went offline: if it was its policy's last, the policy is offline now (no write needed to find out). */
void manager_watch_cpu_offline(Governed *g, unsigned cpu, uint64_t now_usec);
/* @cpu came back online: if it is its policy's first and the policy was offline or backing off, see at once
 * whether it is back. */
void manager_watch_cpu_online(Governed *g, unsigned cpu, uint64_t now_usec);

/* Closes the kept fds (they are reopened on next use). */
void manager_watch_close(const Governed *g, PolicyWatch *w);
