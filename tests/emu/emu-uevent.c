/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's CPU hotplug uevents, sent by the emulator when a cpuN/online write changes a CPU's state
 * (--uevents): what device_online()/device_offline() (drivers/base/core.c) raise with KOBJ_ONLINE/KOBJ_OFFLINE,
 * in the form lib/kobject_uevent.c gives them (alloc_uevent_skb(): "ACTION@DEVPATH\0", then kobject_uevent_env()'s
 * "ACTION=", "DEVPATH=", "SUBSYSTEM=", "SEQNUM=", each NUL-terminated), to multicast group 1 of
 * NETLINK_KOBJECT_UEVENT. The bus's own variables (MODALIAS=, DRIVER=) are machine-specific and left out.
 *
 * A process's multicast reaches only its own network namespace (netlink_broadcast()); sending needs
 * CAP_NET_ADMIN over it. Sent from the initial namespace, a fake CPU uevent would reach the host's udev, so
 * emu_uevent_open() refuses there: the tests run the emulator under `unshare --net` (tests/emu-run --net).
 * The receiver sees our port id (not the kernel's 0) and uid 0 in SCM_CREDENTIALS, which the daemon accepts
 * (daemon/events/uevent.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu.h"
#include "log.h"
#include "macro.h"

/*
 * Whether this network namespace may be the host's. PID 1's namespace cannot always be compared with ours
 * (its /proc/1/ns links are unreadable when it is not dumpable, as on these VMs), so the test is what a fresh
 * `unshare --net` has: no interface but lo. A namespace with more is refused, the safe side.
 */
static int netns_may_be_hosts(void) {
        struct if_nameindex *ifs = if_nameindex();
        bool others = false;

        if (!ifs)
                return -errno;
        for (struct if_nameindex *i = ifs; i->if_index != 0; i++)
                others = others || !streq(i->if_name, "lo");
        if_freenameindex(ifs);
        return others;
}

int emu_uevent_open(Emu *e) {
        int r, fd;

        r = netns_may_be_hosts();
        if (r < 0)
                return log_error_errno(r, "--uevents: cannot list the network interfaces: %m");
        if (r > 0)
                return log_error_errno(SYNTHETIC_ERRNO(EPERM),
                                       "--uevents needs a private network namespace (unshare --net; "
                                       "here are interfaces other than lo): the fake CPU uevents would "
                                       "reach the host's listeners");
        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
        if (fd < 0)
                return log_error_errno(errno, "--uevents: NETLINK_KOBJECT_UEVENT socket: %m");
        e->uevent_fd = fd;
        return 0;
}

/* Appends @s with its NUL; false if it does not fit. */
static bool append(char *buf, size_t size, size_t *len, const char *s) {
        size_t n = strlen(s) + 1;

        if (*len + n > size)
                return false;
        memcpy(buf + *len, s, n);
        *len += n;
        return true;
}

void emu_uevent_cpu(Emu *e, unsigned cpu, bool online) {
        struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_groups = 1 };
        const char *action = online ? "online" : "offline";
        char buf[512], devpath[64], var[96];
        size_t len = 0;
        bool fits;

        if (e->uevent_fd < 0)
                return;
        snprintf(devpath, sizeof(devpath), "/devices/system/cpu/cpu%u", cpu);
        snprintf(var, sizeof(var), "%s@%s", action, devpath);
        fits = append(buf, sizeof(buf), &len, var);
        snprintf(var, sizeof(var), "ACTION=%s", action);
        fits = fits && append(buf, sizeof(buf), &len, var);
        snprintf(var, sizeof(var), "DEVPATH=%s", devpath);
        fits = fits && append(buf, sizeof(buf), &len, var);
        fits = fits && append(buf, sizeof(buf), &len, "SUBSYSTEM=cpu");
        snprintf(var, sizeof(var), "SEQNUM=%" PRIu64, ++e->uevent_seqnum);
        fits = fits && append(buf, sizeof(buf), &len, var);
        if (!fits)
                return; /* cannot happen: a few dozen bytes */
        /* As in the kernel, a failed announcement does not fail the state change (kobject_uevent()'s result
         * is ignored by device_online()); it is said on stderr. No listener is not a failure. */
        if (sendto(e->uevent_fd, buf, len, 0, (const struct sockaddr *) &to, sizeof(to)) < 0)
                log_error_errno(errno, "cpu%u %s uevent not sent: %m", cpu, action);
}
