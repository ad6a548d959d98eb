/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for uevent.c. The parser gets crafted buffers in the kernel's format (alloc_uevent_skb(): "ACTION@
 * DEVPATH\0" then NUL-terminated variables), each copied into an exact-size heap buffer so that ASan sees a
 * read past the end. The sender check gets the addresses and credentials the kernel and a root process
 * produce. The monitor runs in a child in a new network namespace (root; never in the initial one: a fake
 * CPU uevent there would reach the host's udev), where the child itself sends fake uevents to group 1, as
 * the tests' emulator does; the parent listens in the initial namespace meanwhile and must hear none of
 * them. Netlink multicast is delivered inside sendmsg(), so "heard in the new namespace right after the send
 * returned, and not in the initial one" is conclusive without any wait.
 */

#include <linux/netlink.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "events.h"
#include "macro.h"
#include "test.h"

/* A marker CPU number no VM here has: the parent recognises the child's fakes by it. */
#define FAKE_CPU 1000U

/* Builds "ACTION@DEVPATH\0" + each of @vars (NULL-terminated list) + "\0" into @buf; returns the length. */
static size_t build(char *buf, size_t size, const char *header, const char *const *vars) {
        size_t n = 0;

        n += (size_t) snprintf(buf + n, size - n, "%s", header) + 1;
        for (size_t i = 0; vars[i]; i++)
                n += (size_t) snprintf(buf + n, size - n, "%s", vars[i]) + 1;
        return n;
}

/* Parses an exact-size copy of @buf[0..@size). */
static int parse_copy(const char *buf, size_t size, UEventCpu *ret) {
        _cleanup_free_ char *copy = calloc(1, size ? size : 1);
        int r;

        if (!copy)
                return -ENOMEM;
        memcpy(copy, buf, size);
        r = uevent_parse(copy, size, ret);
        return r;
}

static int parse_vars(const char *header, const char *const *vars, UEventCpu *ret) {
        char buf[1024];

        return parse_copy(buf, build(buf, sizeof(buf), header, vars), ret);
}

#define VARS(...) ((const char *const[]) { __VA_ARGS__, NULL })

TEST(parse_kernel_messages) {
        UEventCpu ev;

        ASSERT_OK(parse_vars("offline@/devices/system/cpu/cpu1",
                             VARS("ACTION=offline", "DEVPATH=/devices/system/cpu/cpu1", "SUBSYSTEM=cpu",
                                  "SEQNUM=4242"), &ev));
        ASSERT_EQ(ev.cpu, 1);
        ASSERT_TRUE(!ev.online);

        /* With what cpu_uevent() and dev_uevent() add on x86. */
        ASSERT_OK(parse_vars("online@/devices/system/cpu/cpu17",
                             VARS("ACTION=online", "DEVPATH=/devices/system/cpu/cpu17", "SUBSYSTEM=cpu",
                                  "DRIVER=processor", "MODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000",
                                  "SEQNUM=7"), &ev));
        ASSERT_EQ(ev.cpu, 17);
        ASSERT_TRUE(ev.online);

        ASSERT_OK(parse_vars("online@/devices/system/cpu/cpu0",
                             VARS("SUBSYSTEM=cpu", "DEVPATH=/devices/system/cpu/cpu0", "ACTION=online"), &ev));
        ASSERT_EQ(ev.cpu, 0);
        ASSERT_OK(parse_vars("online@/devices/system/cpu/cpu1023",
                             VARS("ACTION=online", "DEVPATH=/devices/system/cpu/cpu1023", "SUBSYSTEM=cpu"), &ev));
        ASSERT_EQ(ev.cpu, 1023);
}

TEST(parse_other_messages) {
        UEventCpu ev = { .cpu = 77, .online = true };

        /* Other actions of the same device. */
        ASSERT_ERROR(parse_vars("add@/devices/system/cpu/cpu1",
                                VARS("ACTION=add", "DEVPATH=/devices/system/cpu/cpu1", "SUBSYSTEM=cpu"), &ev), ENOMSG);
        ASSERT_ERROR(parse_vars("change@/devices/system/cpu/cpu1",
                                VARS("ACTION=change", "DEVPATH=/devices/system/cpu/cpu1", "SUBSYSTEM=cpu"), &ev), ENOMSG);
        /* Other subsystems going online (memory blocks do). */
        ASSERT_ERROR(parse_vars("online@/devices/system/memory/memory32",
                                VARS("ACTION=online", "DEVPATH=/devices/system/memory/memory32", "SUBSYSTEM=memory"),
                                &ev), ENOMSG);
        ASSERT_ERROR(parse_vars("online@/devices/system/cpu/cpu1",
                                VARS("ACTION=online", "DEVPATH=/devices/system/cpu/cpu1", "SUBSYSTEM=cpux"), &ev), ENOMSG);
        /* Not a CPU device path, or not a canonical number. */
        static const char *const bad_paths[] = {
                "/devices/system/cpu/cpu", "/devices/system/cpu/cpu01", "/devices/system/cpu/cpu+1",
                "/devices/system/cpu/cpu1a", "/devices/system/cpu/cpu1/cache", "/devices/system/cpu/cpu1024",
                "/devices/system/cpu/cpu99999", "/devices/system/cpu/cpufreq", "/devices/system/machinecheck/cpu1",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_paths); i++) {
                char header[128], devpath[128];

                snprintf(header, sizeof(header), "online@%s", bad_paths[i]);
                snprintf(devpath, sizeof(devpath), "DEVPATH=%s", bad_paths[i]);
                ASSERT_ERROR(parse_vars(header, VARS("ACTION=online", devpath, "SUBSYSTEM=cpu"), &ev), ENOMSG);
        }
        /* udev's own messages. */
        ASSERT_ERROR(parse_vars("libudev", VARS("ACTION=online"), &ev), ENOMSG);
        /* Never written on failure. */
        ASSERT_EQ(ev.cpu, 77);
        ASSERT_TRUE(ev.online);
}

TEST(parse_malformed) {
        static const char no_final_nul[] = "online@/devices/system/cpu/cpu1\0ACTION=online\0"
                                           "DEVPATH=/devices/system/cpu/cpu1\0SUBSYSTEM=cpu";
        static const char no_header_nul[] = "online@/devices/system/cpu/cpu1";
        UEventCpu ev = { .cpu = 77, .online = true };

        ASSERT_ERROR(parse_copy("", 0, &ev), EBADMSG);
        ASSERT_ERROR(uevent_parse(NULL, 10, &ev), EBADMSG);
        ASSERT_ERROR(parse_copy(no_final_nul, sizeof(no_final_nul) - 1, &ev), EBADMSG);
        ASSERT_ERROR(parse_copy(no_header_nul, sizeof(no_header_nul) - 1, &ev), EBADMSG);
        /* The header: no '@', nothing after it, not a path after it. */
        ASSERT_ERROR(parse_vars("online/devices/system/cpu/cpu1",
                                VARS("ACTION=online", "DEVPATH=/devices/system/cpu/cpu1", "SUBSYSTEM=cpu"), &ev), EBADMSG);
        ASSERT_ERROR(parse_vars("online@", VARS("ACTION=online", "DEVPATH=", "SUBSYSTEM=cpu"), &ev), EBADMSG);
        ASSERT_ERROR(parse_vars("online@devices",
                                VARS("ACTION=online", "DEVPATH=devices", "SUBSYSTEM=cpu"), &ev), EBADMSG);
        /* The header disagrees with the variables. */
        ASSERT_ERROR(parse_vars("offline@/devices/system/cpu/cpu1",
                                VARS("ACTION=online", "DEVPATH=/devices/system/cpu/cpu1", "SUBSYSTEM=cpu"), &ev), EBADMSG);
        ASSERT_ERROR(parse_vars("online@/devices/system/cpu/cpu2",
                                VARS("ACTION=online", "DEVPATH=/devices/system/cpu/cpu1", "SUBSYSTEM=cpu"), &ev), EBADMSG);
        ASSERT_ERROR(parse_vars("online@/devices/system/cpu/cpu1",
                                VARS("ACTION=online", "DEVPATH=/devices/system/cpu/cpu12", "SUBSYSTEM=cpu"), &ev), EBADMSG);
        /* A variable missing or repeated. */
        ASSERT_ERROR(parse_vars("online@/devices/system/cpu/cpu1",
                                VARS("ACTION=online", "DEVPATH=/devices/system/cpu/cpu1"), &ev), EBADMSG);
        ASSERT_ERROR(parse_vars("online@/devices/system/cpu/cpu1",
                                VARS("DEVPATH=/devices/system/cpu/cpu1", "SUBSYSTEM=cpu"), &ev), EBADMSG);
        ASSERT_ERROR(parse_vars("online@/devices/system/cpu/cpu1",
                                VARS("ACTION=online", "DEVPATH=/devices/system/cpu/cpu1", "SUBSYSTEM=cpu",
                                     "SUBSYSTEM=memory"), &ev), EBADMSG);
        ASSERT_ERROR(parse_vars("online@/devices/system/cpu/cpu1",
                                VARS("ACTION=online", "ACTION=online", "DEVPATH=/devices/system/cpu/cpu1",
                                     "SUBSYSTEM=cpu"), &ev), EBADMSG);
        ASSERT_EQ(ev.cpu, 77);
}

TEST(sender_trust) {
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK, .nl_pid = 0, .nl_groups = UEVENT_GROUP_KERNEL };
        struct sockaddr_nl process = { .nl_family = AF_NETLINK, .nl_pid = 4321, .nl_groups = UEVENT_GROUP_KERNEL };
        struct sockaddr_nl unicast = { .nl_family = AF_NETLINK, .nl_pid = 4321, .nl_groups = 0 };
        struct sockaddr_nl udev = { .nl_family = AF_NETLINK, .nl_pid = 4321, .nl_groups = 2 };
        struct ucred root = { .pid = 4321, .uid = 0, .gid = 0 }, user = { .pid = 4321, .uid = 1000, .gid = 1000 };
        struct ucred kernel_cred = { .pid = 0, .uid = 0, .gid = 0 };

        ASSERT_TRUE(uevent_sender_trusted(&kernel, &kernel_cred));
        ASSERT_TRUE(uevent_sender_trusted(&kernel, NULL));
        ASSERT_TRUE(uevent_sender_trusted(&process, &root));
        ASSERT_TRUE(!uevent_sender_trusted(&process, &user));
        ASSERT_TRUE(!uevent_sender_trusted(&process, NULL));
        ASSERT_TRUE(!uevent_sender_trusted(&unicast, &root));
        ASSERT_TRUE(!uevent_sender_trusted(&udev, &root));
        ASSERT_TRUE(!uevent_sender_trusted(NULL, &root));
}

TEST(unavailable_errors) {
        ASSERT_TRUE(uevent_error_is_unavailable(-EPERM));
        ASSERT_TRUE(uevent_error_is_unavailable(-EPROTONOSUPPORT));
        ASSERT_TRUE(uevent_error_is_unavailable(-EAFNOSUPPORT));
        ASSERT_TRUE(!uevent_error_is_unavailable(-ENOMEM));
        ASSERT_TRUE(!uevent_error_is_unavailable(-EMFILE));
}

/* Sends a uevent in the kernel's format to group 1 of the caller's network namespace. */
static int send_uevent(const char *action, unsigned cpu, unsigned seqnum) {
        struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_GROUP_KERNEL };
        _cleanup_close_ int fd = -EBADF;
        char buf[512], header[128], a[32], d[128], s[32];
        size_t n;

        snprintf(header, sizeof(header), "%s@/devices/system/cpu/cpu%u", action, cpu);
        snprintf(a, sizeof(a), "ACTION=%s", action);
        snprintf(d, sizeof(d), "DEVPATH=/devices/system/cpu/cpu%u", cpu);
        snprintf(s, sizeof(s), "SEQNUM=%u", seqnum);
        n = build(buf, sizeof(buf), header, VARS(a, d, "SUBSYSTEM=cpu", s));
        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
        if (fd < 0)
                return -errno;
        if (sendto(fd, buf, n, 0, (const struct sockaddr *) &to, sizeof(to)) < 0)
                return -errno;
        return 0;
}

typedef struct Heard {
        unsigned n, fake, cpu[8];
        bool online[8];
        int fail_with;
} Heard;

static int on_cpu(unsigned cpu, bool online, void *userdata) {
        Heard *h = userdata;

        if (cpu == FAKE_CPU)
                h->fake++;
        if (h->n < ELEMENTSOF(h->cpu)) {
                h->cpu[h->n] = cpu;
                h->online[h->n] = online;
        }
        h->n++;
        return h->fail_with;
}

/* In the child, in a new network namespace: exit status 0 if all went as expected, else the failing step. */
static int child_in_new_netns(void) {
        _cleanup_(uevent_monitor_freep) UEventMonitor *m = NULL;
        sd_event *e = NULL;
        Heard h = {};
        int r, status = 0;

        if (unshare(CLONE_NEWNET) < 0)
                return 10;
        if (sd_event_new(&e) < 0)
                return 11;
        if (uevent_monitor_new(e, on_cpu, &h, &m) < 0)
                status = 12;
        /* Heard as soon as the send returned (delivered inside sendmsg()), through the loop's io source. */
        if (!status && (send_uevent("offline", FAKE_CPU, 1) < 0 || send_uevent("online", FAKE_CPU, 2) < 0))
                status = 13;
        if (!status && sd_event_run(e, 0) < 0)
                status = 14;
        if (!status && (h.n != 2 || h.fake != 2 || h.online[0] || !h.online[1]))
                status = 15;
        if (!status && (uevent_monitor_stats(m)->received != 2 || uevent_monitor_stats(m)->delivered != 2))
                status = 16;
        /* A non-CPU uevent is read and ignored. */
        if (!status) {
                struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_GROUP_KERNEL };
                static const char msg[] = "add@/devices/virtual/net/lo\0ACTION=add\0DEVPATH=/devices/virtual/net/lo\0"
                                          "SUBSYSTEM=net\0SEQNUM=3\0";
                _cleanup_close_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);

                if (fd < 0 || sendto(fd, msg, sizeof(msg) - 1, 0, (const struct sockaddr *) &to, sizeof(to)) < 0)
                        status = 17;
                else if (uevent_monitor_drain(m) < 0 || h.n != 2 || uevent_monitor_stats(m)->ignored != 1)
                        status = 18;
        }
        /* A handler error comes back from the drain. */
        if (!status) {
                h.fail_with = -EIO;
                r = send_uevent("offline", FAKE_CPU, 4);
                if (r < 0 || uevent_monitor_drain(m) != -EIO || h.n != 3)
                        status = 19;
        }
        m = uevent_monitor_free(m);
        sd_event_unref(e);
        return status;
}

TEST(monitor_in_new_netns_not_heard_in_initial) {
        _cleanup_(uevent_monitor_freep) UEventMonitor *initial = NULL;
        sd_event *e = NULL;
        Heard h = {};
        int status;
        pid_t pid;

        ASSERT_OK(sd_event_new(&e));
        /* Listening in the initial namespace before the child sends. */
        ASSERT_OK(uevent_monitor_new(e, on_cpu, &h, &initial));
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0)
                _exit(child_in_new_netns());
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status));
        ASSERT_EQ(WEXITSTATUS(status), 0);

        /* Whatever the host's kernel said meanwhile may be there; none of the child's fakes. */
        ASSERT_OK(uevent_monitor_drain(initial));
        ASSERT_EQ(h.fake, 0);
        ASSERT_EQ(uevent_monitor_stats(initial)->untrusted, 0);
        initial = uevent_monitor_free(initial);
        sd_event_unref(e);
}

DEFINE_TEST_MAIN
