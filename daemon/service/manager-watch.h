/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The daemon's eye on the policies it governs, which others may change under it (sysfs cannot notify): their
 * scaling limits (followed), their governor (another tool switching it away releases the policy to that tool),
 * and whether they are there at all (all CPUs offline: EBUSY). Reads at the wake-ups that happen anyway, at
 * most once a second and only while some CPU is busy, through kept-open fds; and at every failed write.
 * The states are policy-health.h's; the Manager holds them (m->health), the bus shows them.
 */

#include <stdint.h>

#include "manager.h"

/* After each wake-up of the loop (manager.c on_post()). */
void manager_watch_poll(Manager *m, uint64_t now_usec);

/* A scaling_setspeed write of policy @i failed with @error / succeeded (on the hot path: cheap unless the
 * policy was not governed). */
void manager_watch_write_failed(Manager *m, unsigned i, int error, uint64_t now_usec);
void manager_watch_write_succeeded(Manager *m, unsigned i, uint64_t now_usec);

/* @cpu went offline: if it was its policy's last, the policy is offline now (no write needed to find out). */
void manager_watch_cpu_offline(Manager *m, unsigned cpu, uint64_t now_usec);
/* @cpu came back online: if it is its policy's first and the policy was offline or backing off, see at once
 * whether it is back. */
void manager_watch_cpu_online(Manager *m, unsigned cpu, uint64_t now_usec);

/* Closes the kept fds (they are reopened on next use). */
void manager_watch_close(Manager *m);
