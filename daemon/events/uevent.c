/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uevent.c: CPU online/offline uevents from NETLINK_KOBJECT_UEVENT, decoded and handed to the caller (who
 * closes and re-opens the CPU's perf events and changes its model). Only the socket and the decoding live
 * here.
 *
 * What the kernel sends. device_online()/device_offline() (drivers/base/core.c) raise KOBJ_ONLINE/KOBJ_OFFLINE
 * on the CPU's device after the CPU changed state (a write to cpuN/online goes there through online_store());
 * kobject_uevent_env() (lib/kobject_uevent.c) builds "ACTION=", "DEVPATH=", "SUBSYSTEM=", then what the bus
 * adds (cpu_uevent(): MODALIAS=cpu:type:..., dev_uevent(): DRIVER=processor), then "SEQNUM=", each
 * NUL-terminated; alloc_uevent_skb() puts "ACTION@DEVPATH\0" in front, no nlmsghdr, and sends it to group 1
 * with portid 0 and root credentials. E.g. "offline@/devices/system/cpu/cpu1\0ACTION=offline\0DEVPATH=
 * /devices/system/cpu/cpu1\0SUBSYSTEM=cpu\0SEQNUM=4242\0".
 *
 * Which network namespaces hear it: uevent_net_broadcast_untagged() walks uevent_sock_list, which holds the
 * uevent socket of every network namespace owned by the initial user namespace (uevent_net_init()): a
 * namespace made by root with `unshare --net` hears the kernel's uevents too; one inside a user namespace
 * does not. A process's own sends to group 1 (it needs CAP_NET_ADMIN over the namespace, netlink_allowed())
 * reach its own network namespace only (netlink_broadcast() delivers within the sender's net): that is how
 * the tests' emulator announces fake hotplug without the host's udev hearing it.
 *
 * Trust: like systemd's sd-device monitor (device_monitor_receive_device()), a message counts only if it came
 * to the kernel group and either from the kernel (nl_pid 0) or from uid 0 according to SCM_CREDENTIALS.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "events.h"
#include "log.h"

/* UEVENT_BUFFER_SIZE (2048, include/linux/kobject.h) of variables plus "ACTION@DEVPATH": a devpath is far
 * shorter than the rest of the page. A longer message is truncated (MSG_TRUNC) and counted as malformed. */
#define UEVENT_MESSAGE_MAX 8192
/* A burst of uevents (a dock, a USB hub: hundreds) must not overrun the socket; 1 MiB holds thousands. */
#define UEVENT_RCVBUF (1U << 20)

#define CPU_DEVPATH_PREFIX "/devices/system/cpu/cpu"

struct UEventMonitor {
        sd_event_source *io;
        int fd;
        UEventHandler handler;
        UEventOverrunHandler overrun_handler;
        void *userdata;
        UEventStats stats;
};

typedef struct UEventField {
        const char *key;        /* "ACTION=" etc. */
        const char *value;      /* into the message, NUL-terminated there */
        size_t len;
} UEventField;

/* "cpuN" → N: canonical decimal (no sign, no leading zero, no trailing text), at most UEVENT_CPU_MAX. */
static int parse_cpu_number(const char *s, size_t len, unsigned *ret) {
        unsigned v = 0;

        if (len == 0 || len > 4 || (s[0] == '0' && len > 1))
                return -ERANGE;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -ERANGE;
                v = v * 10 + (unsigned) (s[i] - '0');
        }
        if (v > UEVENT_CPU_MAX)
                return -ERANGE;
        *ret = v;
        return 0;
}

static bool value_is(const UEventField *f, const char *s) {
        return f->len == strlen(s) && memcmp(f->value, s, f->len) == 0;
}

int uevent_parse(const void *buf, size_t size, UEventCpu *ret) {
        UEventField fields[] = { { "ACTION=" }, { "DEVPATH=" }, { "SUBSYSTEM=" } };
        UEventField *action = &fields[0], *devpath = &fields[1], *subsystem = &fields[2];
        const char *msg = buf, *at;
        size_t header_len, pos;
        UEventCpu cpu;

        if (!buf || size == 0)
                return -EBADMSG;
        header_len = strnlen(msg, size);
        if (header_len == size)
                return -EBADMSG; /* the header has no NUL */
        /* udev's re-broadcasts (group 2, "libudev\0" + a binary header): never ours, though never on group 1. */
        if (header_len == strlen("libudev") && memcmp(msg, "libudev", header_len) == 0)
                return -ENOMSG;
        at = memchr(msg, '@', header_len);
        if (!at || (size_t) (at - msg) + 1 >= header_len || at[1] != '/')
                return -EBADMSG;

        for (pos = header_len + 1; pos < size;) {
                const char *var = msg + pos;
                size_t len = strnlen(var, size - pos);

                if (pos + len == size)
                        return -EBADMSG; /* the kernel ends every variable with a NUL */
                pos += len + 1;
                for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
                        size_t klen = strlen(fields[i].key);

                        if (len < klen || memcmp(var, fields[i].key, klen) != 0)
                                continue;
                        if (fields[i].value)
                                return -EBADMSG; /* twice: which one would be true? */
                        fields[i].value = var + klen;
                        fields[i].len = len - klen;
                }
        }
        for (size_t i = 0; i < ELEMENTSOF(fields); i++)
                if (!fields[i].value)
                        return -EBADMSG;
        /* The header is "ACTION@DEVPATH" of the same message (alloc_uevent_skb()). */
        if ((size_t) (at - msg) != action->len || memcmp(msg, action->value, action->len) != 0 ||
            header_len - action->len - 1 != devpath->len || memcmp(at + 1, devpath->value, devpath->len) != 0)
                return -EBADMSG;

        if (!value_is(subsystem, "cpu"))
                return -ENOMSG;
        if (value_is(action, "online"))
                cpu.online = true;
        else if (value_is(action, "offline"))
                cpu.online = false;
        else
                return -ENOMSG; /* add, remove, change, bind, unbind, move */
        if (devpath->len <= strlen(CPU_DEVPATH_PREFIX) ||
            memcmp(devpath->value, CPU_DEVPATH_PREFIX, strlen(CPU_DEVPATH_PREFIX)) != 0)
                return -ENOMSG;
        if (parse_cpu_number(devpath->value + strlen(CPU_DEVPATH_PREFIX),
                             devpath->len - strlen(CPU_DEVPATH_PREFIX), &cpu.cpu) < 0)
                return -ENOMSG;
        *ret = cpu;
        return 0;
}

bool uevent_sender_trusted(const struct sockaddr_nl *from, const struct ucred *cred) {
        if (!from || from->nl_family != AF_NETLINK || from->nl_groups != UEVENT_GROUP_KERNEL)
                return false;
        return from->nl_pid == 0 || (cred && cred->uid == 0);
}

bool uevent_error_is_unavailable(int r) {
        return r == -EPERM || r == -EACCES || r == -EPROTONOSUPPORT || r == -EAFNOSUPPORT;
}

static const struct ucred *message_cred(struct msghdr *mh) {
        for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
                    c->cmsg_len == CMSG_LEN(sizeof(struct ucred)))
                        return (const struct ucred *) (const void *) CMSG_DATA(c);
        return NULL;
}

/* Reads and handles one message: 1 if one was read, 0 if none was queued, or a negative errno. */
static int uevent_monitor_receive_one(UEventMonitor *m) {
        union {
                struct cmsghdr cmsghdr;
                uint8_t buf[CMSG_SPACE(sizeof(struct ucred))];
        } control;
        char buf[UEVENT_MESSAGE_MAX];
        struct sockaddr_nl from = {};
        struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
        struct msghdr mh = {
                .msg_name = &from,
                .msg_namelen = sizeof(from),
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        UEventCpu ev;
        ssize_t n;
        int r;

        n = recvmsg(m->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return 0;
                if (errno != ENOBUFS)
                        return -errno;
                /* Overrun: messages are gone, the socket works on. The caller re-reads the online CPUs. */
                m->stats.overruns++;
                log_debug("uevent socket overran, hotplug events were lost");
                r = m->overrun_handler ? m->overrun_handler(m->userdata) : 0;
                return r < 0 ? r : 1;
        }
        m->stats.received++;
        if (!uevent_sender_trusted(&from, message_cred(&mh))) {
                m->stats.untrusted++;
                log_debug("uevent from port %u (group %u) ignored: neither the kernel nor root", from.nl_pid,
                          from.nl_groups);
                return 1;
        }
        if (mh.msg_flags & MSG_TRUNC) {
                m->stats.malformed++;
                return 1;
        }
        r = uevent_parse(buf, (size_t) n, &ev);
        if (r == -ENOMSG) {
                m->stats.ignored++;
                return 1;
        }
        if (r < 0) {
                m->stats.malformed++;
                log_debug("malformed uevent (%zd bytes) ignored", n);
                return 1;
        }
        m->stats.delivered++;
        log_debug("uevent: cpu%u went %s", ev.cpu, ev.online ? "online" : "offline");
        r = m->handler(ev.cpu, ev.online, m->userdata);
        return r < 0 ? r : 1;
}

int uevent_monitor_drain(UEventMonitor *m) {
        int r;

        do
                r = uevent_monitor_receive_one(m);
        while (r > 0);
        return r;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        return uevent_monitor_drain(ASSERT_PTR(userdata));
}

static int uevent_socket_open(void) {
        struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_GROUP_KERNEL };
        _cleanup_close_ int fd = -EBADF;
        int one = 1, rcvbuf = (int) UEVENT_RCVBUF;

        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
        if (fd < 0)
                return -errno;
        /* Without SO_PASSCRED no SCM_CREDENTIALS come, and root senders (the tests' emulator) are refused. */
        if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
                return -errno;
        /* SO_RCVBUFFORCE ignores rmem_max but needs CAP_NET_ADMIN; the plain one is capped, still fine. */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
                (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
        if (bind(fd, (const struct sockaddr *) &addr, sizeof(addr)) < 0)
                return -errno;
        return TAKE_FD(fd);
}

int uevent_monitor_new(sd_event *event, UEventHandler handler, void *userdata, UEventMonitor **ret) {
        _cleanup_(uevent_monitor_freep) UEventMonitor *m = NULL;
        int r;

        if (!event || !handler || !ret)
                return -EINVAL;
        m = calloc(1, sizeof(UEventMonitor));
        if (!m)
                return -ENOMEM;
        m->handler = handler;
        m->userdata = userdata;
        m->fd = uevent_socket_open();
        if (m->fd < 0)
                return m->fd;
        r = sd_event_add_io(event, &m->io, m->fd, EPOLLIN, on_uevent, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(m->io, "uevent-cpu");
        (void) sd_event_source_set_exit_on_failure(m->io, true);
        *ret = TAKE_PTR(m);
        return 0;
}

void uevent_monitor_set_overrun_handler(UEventMonitor *m, UEventOverrunHandler handler) {
        m->overrun_handler = handler;
}

const UEventStats *uevent_monitor_stats(const UEventMonitor *m) {
        return &m->stats;
}

int uevent_monitor_fd(const UEventMonitor *m) {
        return m->fd;
}

UEventMonitor *uevent_monitor_free(UEventMonitor *m) {
        if (!m)
                return NULL;
        m->io = sd_event_source_disable_unref(m->io);
        closep(&m->fd);
        free(m);
        return NULL;
}
