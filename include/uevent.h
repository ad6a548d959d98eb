/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * CPU hotplug announcements: the kernel's kobject uevents (NETLINK_KOBJECT_UEVENT, multicast group 1) for
 * SUBSYSTEM=cpu with ACTION=online or offline, on the sd-event loop. Everything else on that socket (other
 * subsystems, add/remove/change, udev's own "libudev" messages) is skipped. Why the daemon needs it: a CPU
 * that goes offline loses its perf events for good (perf-events.h, perf_events_cpu_offline()), so its rings
 * must be closed and, when it is back, opened again.
 *
 * Two layers:
 *   uevent_parse()          one message → (cpu, online); pure and bounds-checked.
 *   uevent_sender_trusted() the sender check (the kernel, or root), from the message's address and its
 *                           SCM_CREDENTIALS, as systemd's sd-device monitor does.
 *   UEventMonitor           the socket, its io source and the callback. No timers.
 *
 * Where the socket cannot be had (uevent_error_is_unavailable()), uevent_monitor_new() fails at once and the
 * caller runs without hotplug notifications (it logs that once). No logging above debug.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <systemd/sd-event.h>

#include "macro.h"

/* The kernel's multicast group (uevent_net_broadcast_untagged(): netlink_broadcast(..., 0, 1, ...)). */
#define UEVENT_GROUP_KERNEL 1U
/* CPUs beyond this are not reported (cpu_set_t holds CPU_SETSIZE = 1024). */
#define UEVENT_CPU_MAX 1023U

typedef struct UEventCpu {
        unsigned cpu;
        bool online;
} UEventCpu;

/*
 * Decodes one kernel uevent: "ACTION@DEVPATH\0KEY=VALUE\0...\0" (@size bytes, lib/kobject_uevent.c
 * alloc_uevent_skb()). Returns 0 for a CPU going online or offline (SUBSYSTEM=cpu, ACTION=online|offline,
 * DEVPATH=/devices/system/cpu/cpuN with N canonical decimal <= UEVENT_CPU_MAX); -ENOMSG for a well-formed
 * message about anything else (udev's "libudev" messages included); -EBADMSG for a malformed one (no NUL
 * where one must be, no "@/" in the header, a missing or repeated ACTION, DEVPATH or SUBSYSTEM, a header
 * that disagrees with them). @ret is written only on success.
 */
int uevent_parse(const void *buf, size_t size, UEventCpu *ret);

/*
 * Whether a message may be believed: it was sent to the kernel's group (@from->nl_groups ==
 * UEVENT_GROUP_KERNEL), by the kernel (@from->nl_pid == 0) or by a process whose SCM_CREDENTIALS say uid 0
 * (@cred NULL: none came). Sending to a uevent group needs CAP_NET_ADMIN in the network namespace's user
 * namespace, so without the uid check a container's root could fake hotplug for a host daemon.
 */
bool uevent_sender_trusted(const struct sockaddr_nl *from, const struct ucred *cred);

typedef struct UEventMonitor UEventMonitor;

/* Called once per trusted CPU uevent, in arrival order. A negative return ends the sd-event loop with it. */
typedef int (*UEventHandler)(unsigned cpu, bool online, void *userdata);
/*
 * Called when the socket overran (ENOBUFS: uevents were lost); the caller re-reads the online CPUs
 * (/sys/devices/system/cpu/online) itself. Optional; same return rule; the handler's userdata.
 */
typedef int (*UEventOverrunHandler)(void *userdata);

typedef struct UEventStats {
        uint64_t received;      /* messages read from the socket */
        uint64_t delivered;     /* CPU online/offline events handed to the handler */
        uint64_t ignored;       /* well-formed, about something else (-ENOMSG) */
        uint64_t malformed;     /* -EBADMSG, or truncated (MSG_TRUNC) */
        uint64_t untrusted;     /* from neither the kernel nor root, dropped unread */
        uint64_t overruns;      /* ENOBUFS seen */
} UEventStats;

/*
 * Opens the socket (SOCK_CLOEXEC|SOCK_NONBLOCK, bound to group 1, SO_PASSCRED) and attaches an io source to
 * @event. Returns 0, -EINVAL, -ENOMEM, or the errno of socket(2)/bind(2)/sd-event: see
 * uevent_error_is_unavailable() for those that mean "this machine has no uevents for us".
 */
int uevent_monitor_new(sd_event *event, UEventHandler handler, void *userdata, UEventMonitor **ret);
void uevent_monitor_set_overrun_handler(UEventMonitor *m, UEventOverrunHandler handler);
/* Reads every queued message now (the io source does the same). Returns 0 or a handler's negative return,
 * or the errno of recvmsg(2) other than EAGAIN/EINTR/ENOBUFS. */
int uevent_monitor_drain(UEventMonitor *m);
const UEventStats *uevent_monitor_stats(const UEventMonitor *m);
int uevent_monitor_fd(const UEventMonitor *m);

/* EPERM, EACCES (a seccomp or LSM refusal), EPROTONOSUPPORT, EAFNOSUPPORT (no netlink or no uevent
 * protocol in this kernel): run without hotplug notifications. */
bool uevent_error_is_unavailable(int r);

UEventMonitor *uevent_monitor_free(UEventMonitor *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(UEventMonitor *, uevent_monitor_free);
