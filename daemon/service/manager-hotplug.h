/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * CPU hotplug while the daemon runs: the kernel's online/offline uevents (events.h) close a leaving CPU's
 * perf events and drop it from the model (perf_events_cpu_offline(), engine_cpu_set_online()), and re-open and
 * re-add it when it comes back; its policy's health follows (manager-watch.h). Lost uevents (a socket overrun)
 * are made up for by re-reading /sys/devices/system/cpu/online. The manager lends the governed policies
 * (governed.h) for as long as the subscription lasts.
 */

#include <systemd/sd-event.h>

#include "governed.h"

typedef struct UEventMonitor UEventMonitor;

typedef struct Hotplug {
        Governed *gov;                 /* the manager's, current for as long as the subscription lasts */
        UEventMonitor *uevents;        /* NULL where uevents are unavailable */
} Hotplug;

/* Subscribes; where uevents cannot be had (a sandbox, a container), says so once and returns 0: the daemon
 * then notices a policy's CPUs going only by its failing writes (EBUSY). */
int manager_hotplug_start(Hotplug *h, sd_event *event, Governed *gov);
void manager_hotplug_stop(Hotplug *h);
