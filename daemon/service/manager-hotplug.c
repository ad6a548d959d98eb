/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manager-hotplug.c: see manager-hotplug.h.
 *
 * Kernel behaviour this relies on:
 *  - kernel/cpu.c, drivers/base/cpu.c: a CPU going offline or online sends a KOBJ_OFFLINE/KOBJ_ONLINE uevent for
 *    /devices/system/cpu/cpuN after the state change;
 *  - kernel/events/core.c perf_event_exit_cpu_context(): a CPU going offline takes its per-CPU perf events out
 *    of their context for good; perf_event_open() on an offline CPU fails with ENODEV;
 *  - drivers/cpufreq/cpufreq.c cpufreq_offline()/cpufreq_online(): the policy loses the CPU from policy->cpus
 *    (affected_cpus), and an inactive policy gets its last governor back with its first returning CPU.
 */

#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "cpulist.h"
#include "event-source.h"
#include "events.h"
#include "governor.h"
#include "log.h"
#include "manager-hotplug.h"
#include "manager-watch.h"
#include "time-util.h"
#include "topology.h"

static int hotplug_offline(Governed *g, unsigned cpu) {
        int r;

        r = event_source_cpu_offline(g->source, (int) cpu);
        if (r < 0)
                return log_error_errno(r, "cpu%u went offline, closing its events failed: %m", cpu);
        if (engine_cpu_set_online(g->engine, (int) cpu, false) > 0)
                log_info("cpu%u went offline: its events closed, dropped from the model.", cpu);
        manager_watch_cpu_offline(g, cpu, monotonic_usec());
        return 0;
}

static int hotplug_online(Governed *g, unsigned cpu) {
        int r;

        r = event_source_cpu_online(g->source, (int) cpu);
        if (r == -ENODEV) {
                /* Gone again already: its offline uevent follows. */
                log_debug("cpu%u: online uevent, but the kernel has it offline again.", cpu);
                return 0;
        }
        if (r < 0) {
                /* Governing goes on without that CPU's events; its policy's other CPUs still count. */
                log_warning_errno(r, "cpu%u is back online, but its events cannot be opened: %m", cpu);
                return 0;
        }
        if (engine_cpu_set_online(g->engine, (int) cpu, true) > 0)
                log_info("cpu%u is back online: events re-opened.", cpu);
        manager_watch_cpu_online(g, cpu, monotonic_usec());
        return 0;
}

static int on_cpu_uevent(unsigned cpu, bool online, void *userdata) {
        Governed *g = ASSERT_PTR(userdata);

        if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &g->topology->possible))
                return 0;
        return online ? hotplug_online(g, cpu) : hotplug_offline(g, cpu);
}

/* Uevents were lost: what the kernel says now is the truth. */
static int on_uevent_overrun(void *userdata) {
        Governed *g = ASSERT_PTR(userdata);
        char buf[4096];
        cpu_set_t online;
        int r;

        r = cpufreq_sysfs_read(SYSFS_CPU_DIR "/online", buf, sizeof(buf));
        if (r >= 0)
                r = cpulist_parse(buf, &online);
        if (r < 0) {
                log_warning_errno(r, "CPU hotplug notices were lost and %s/online is unreadable: %m", SYSFS_CPU_DIR);
                return 0;
        }
        log_notice("CPU hotplug notices were lost: re-reading the online CPUs.");
        for (unsigned cpu = 0; cpu < CPU_SETSIZE; cpu++) {
                bool now_online = CPU_ISSET(cpu, &online);

                if (!CPU_ISSET(cpu, &g->topology->possible) || now_online == engine_cpu_online(g->engine, (int) cpu))
                        continue;
                r = now_online ? hotplug_online(g, cpu) : hotplug_offline(g, cpu);
                if (r < 0)
                        return r;
        }
        return 0;
}

int manager_hotplug_start(Hotplug *h, sd_event *event, Governed *gov) {
        int r;

        h->gov = gov;
        r = uevent_monitor_new(event, on_cpu_uevent, gov, &h->uevents);
        if (r < 0) {
                if (!uevent_error_is_unavailable(r))
                        return log_error_errno(r, "Failed to listen for CPU hotplug uevents: %m");
                log_notice_errno(r, "No CPU hotplug uevents here (%m).\n"
                                 "A policy whose CPUs all go offline is noticed at its next write, and a CPU's "
                                 "events are not re-opened when it comes back.");
                return 0;
        }
        uevent_monitor_set_overrun_handler(h->uevents, on_uevent_overrun);
        return 0;
}

void manager_hotplug_stop(Hotplug *h) {
        h->uevents = uevent_monitor_free(h->uevents);
}
