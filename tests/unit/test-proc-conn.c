/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for proc-conn.c. The decoder is fed canned byte buffers (nlmsghdr + cn_msg + proc_event, built as
 * cn_netlink_send_mult() does), placed at odd addresses so that UBSan would catch any in-place read. The
 * rest runs against the real connector (root, initial namespaces: CI): fork/comm/exec/exit of a child and
 * of a thread observed with the right names, a burst that fits the default buffer, a forced overrun with a
 * tiny buffer recovered by a rescan, and the namespaces where the connector must report itself unavailable
 * quickly instead of subscribing to nothing (a new pid namespace, through unshare(2) and through
 * `unshare --pid --fork --mount-proc`; a new network namespace).
 */

#include <fcntl.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "macro.h"
#include "test.h"

static uint64_t mono_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

/* ---- canned messages ------------------------------------------------------------------------------- */

#define OFF_CN NLMSG_HDRLEN
#define OFF_EV (NLMSG_HDRLEN + sizeof(struct cn_msg))

/* Writes nlmsghdr + cn_msg + the first @ev_len bytes of @ev at @buf; returns the message length. */
static size_t canned(uint8_t *buf, const struct proc_event *ev, size_t ev_len) {
        struct nlmsghdr nlh = {
                .nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + ev_len),
                .nlmsg_type = NLMSG_DONE,
                .nlmsg_seq = 41,
        };
        struct cn_msg cn = {
                .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC },
                .seq = 41,
                .ack = 0,
                .len = (uint16_t) ev_len,
        };

        memcpy(buf, &nlh, sizeof(nlh));
        memcpy(buf + OFF_CN, &cn, sizeof(cn));
        memcpy(buf + OFF_EV, ev, ev_len);
        return nlh.nlmsg_len;
}

static void put_u32(uint8_t *buf, size_t off, uint32_t v) {
        memcpy(buf + off, &v, sizeof(v));
}

static void put_u16(uint8_t *buf, size_t off, uint16_t v) {
        memcpy(buf + off, &v, sizeof(v));
}

static struct proc_event event_of(uint32_t what) {
        struct proc_event ev;

        memset(&ev, 0, sizeof(ev));
        ev.what = what;
        ev.cpu = 1;
        ev.timestamp_ns = UINT64_C(123456789012345);
        return ev;
}

/* 8-byte aligned storage; messages go at +1 so that nothing in them is aligned. */
static uint64_t storage[64];
#define BUF ((uint8_t *) storage + 1)

TEST(parse_fork) {
        struct proc_event ev = event_of(PROC_EVENT_FORK);
        ProcEvent e;
        size_t n;

        ev.event_data.fork.parent_pid = 10;
        ev.event_data.fork.parent_tgid = 9;
        ev.event_data.fork.child_pid = 12;
        ev.event_data.fork.child_tgid = 11;
        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_FORK);
        ASSERT_U64_EQ(e.what, PROC_EVENT_FORK);
        ASSERT_EQ(e.cpu, 1);
        ASSERT_U64_EQ(e.timestamp_ns, UINT64_C(123456789012345));
        ASSERT_EQ(e.parent_pid, 10);
        ASSERT_EQ(e.parent_tgid, 9);
        ASSERT_EQ(e.pid, 12);
        ASSERT_EQ(e.tgid, 11);
        ASSERT_EQ(e.seq, 41);
        ASSERT_STREQ(proc_event_type_to_string(e.type), "fork");

        /* Extra bytes after the message (a larger receive buffer) are fine. */
        ASSERT_OK(proc_event_parse(BUF, n + 64, &e));
}

TEST(parse_exec_comm_exit_ack) {
        struct proc_event ev;
        ProcEvent e;
        size_t n;

        ev = event_of(PROC_EVENT_EXEC);
        ev.event_data.exec.process_pid = 77;
        ev.event_data.exec.process_tgid = 70;
        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_EXEC);
        ASSERT_EQ(e.pid, 77);
        ASSERT_EQ(e.tgid, 70);

        /* comm: 16 bytes without a NUL (the kernel pads, but do not trust it) end up NUL-terminated at 15. */
        ev = event_of(PROC_EVENT_COMM);
        ev.event_data.comm.process_pid = 5;
        ev.event_data.comm.process_tgid = 5;
        memcpy(ev.event_data.comm.comm, "0123456789abcdef", 16);
        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_COMM);
        ASSERT_STREQ(e.comm, "0123456789abcde");

        ev = event_of(PROC_EVENT_EXIT);
        ev.event_data.exit.process_pid = 8;
        ev.event_data.exit.process_tgid = 8;
        ev.event_data.exit.exit_code = 9;        /* killed by SIGKILL */
        ev.event_data.exit.exit_signal = 17;
        ev.event_data.exit.parent_pid = 3;
        ev.event_data.exit.parent_tgid = 3;
        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_EXIT);
        ASSERT_EQ(e.pid, 8);
        ASSERT_EQ(e.exit_code, 9);
        ASSERT_EQ(e.exit_signal, 17);
        ASSERT_EQ(e.parent_pid, 3);

        /* An old kernel's exit event (no parent fields) still decodes. */
        n = canned(BUF, &ev, offsetof(struct proc_event, event_data.exit.parent_pid));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_EXIT);
        ASSERT_EQ(e.exit_code, 9);
        ASSERT_EQ(e.parent_pid, 0);

        ev = event_of(PROC_EVENT_NONE);
        ev.cpu = UINT32_MAX;
        ev.event_data.ack.err = EPERM;
        n = canned(BUF, &ev, sizeof(ev));
        put_u32(BUF, OFF_CN + offsetof(struct cn_msg, ack), 0x1001);
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_ACK);
        ASSERT_EQ(e.err, EPERM);
        ASSERT_EQ(e.ack, 0x1001);
}

TEST(parse_other_known_types) {
        struct proc_event ev;
        ProcEvent e;
        size_t n;

        ev = event_of(PROC_EVENT_UID);
        ev.event_data.id.process_pid = ev.event_data.id.process_tgid = 4;
        ev.event_data.id.r.ruid = 1000;
        ev.event_data.id.e.euid = 0;
        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_UID);
        ASSERT_EQ(e.ruid_rgid, 1000);

        ev = event_of(PROC_EVENT_PTRACE);
        ev.event_data.ptrace.process_pid = ev.event_data.ptrace.process_tgid = 4;
        ev.event_data.ptrace.tracer_pid = 6;
        ev.event_data.ptrace.tracer_tgid = 6;
        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_PTRACE);
        ASSERT_EQ(e.tracer_pid, 6);

        ev = event_of(PROC_EVENT_COREDUMP);
        ev.event_data.coredump.process_pid = ev.event_data.coredump.process_tgid = 4;
        n = canned(BUF, &ev, offsetof(struct proc_event, event_data.coredump.parent_pid));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_COREDUMP);

        ev = event_of(PROC_EVENT_SID);
        ev.event_data.sid.process_pid = 4;
        ev.event_data.sid.process_tgid = 5;
        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_SID);
        ASSERT_EQ(e.pid, 4);
        ASSERT_EQ(e.tgid, 5);
        /* cut inside the sid member: too short for the type */
        n = canned(BUF, &ev, offsetof(struct proc_event, event_data.sid.process_tgid));
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);
}

TEST(parse_unknown_what) {
        struct proc_event ev = event_of(0x00000400);      /* "next" in cn_proc.h: not defined yet */
        ProcEvent e;
        size_t n;

        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_UNKNOWN);
        ASSERT_U64_EQ(e.what, 0x400);
        ASSERT_U64_EQ(e.timestamp_ns, UINT64_C(123456789012345));

        /* An unknown event needs only the common header. */
        n = canned(BUF, &ev, offsetof(struct proc_event, event_data));
        ASSERT_OK(proc_event_parse(BUF, n, &e));
        ASSERT_EQ(e.type, PROC_EVENT_TYPE_UNKNOWN);
}

TEST(parse_truncated) {
        struct proc_event ev = event_of(PROC_EVENT_FORK);
        ProcEvent e = { .pid = -42 };
        size_t n;

        ev.event_data.fork.parent_pid = ev.event_data.fork.parent_tgid = 1;
        ev.event_data.fork.child_pid = ev.event_data.fork.child_tgid = 2;
        n = canned(BUF, &ev, sizeof(ev));

        /* Every prefix of a good message is rejected. */
        for (size_t l = 0; l < n; l++)
                ASSERT_ERROR(proc_event_parse(BUF, l, &e), EBADMSG);
        ASSERT_EQ(e.pid, -42);          /* not written on failure */

        /* nlmsg_len beyond the buffer, or too small for its own header. */
        put_u32(BUF, offsetof(struct nlmsghdr, nlmsg_len), (uint32_t) n + 4);
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);
        put_u32(BUF, offsetof(struct nlmsghdr, nlmsg_len), 8);
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);
        put_u32(BUF, offsetof(struct nlmsghdr, nlmsg_len), NLMSG_HDRLEN + 10);   /* cn_msg cut */
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);

        /* cn_msg.len claiming more than the netlink message holds. */
        n = canned(BUF, &ev, sizeof(ev));
        put_u16(BUF, OFF_CN + offsetof(struct cn_msg, len), (uint16_t) sizeof(ev) + 1);
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);
        put_u16(BUF, OFF_CN + offsetof(struct cn_msg, len), 0xffff);
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);

        /* Consistent lengths but a body too short for the header, or for the type. */
        n = canned(BUF, &ev, offsetof(struct proc_event, event_data) - 1);
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);
        n = canned(BUF, &ev, offsetof(struct proc_event, event_data.fork.child_tgid));
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);

        ev = event_of(PROC_EVENT_COMM);
        ev.event_data.comm.process_pid = ev.event_data.comm.process_tgid = 3;
        n = canned(BUF, &ev, offsetof(struct proc_event, event_data.comm.comm) + 8);
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);

        ev = event_of(PROC_EVENT_EXIT);
        ev.event_data.exit.process_pid = ev.event_data.exit.process_tgid = 3;
        n = canned(BUF, &ev, offsetof(struct proc_event, event_data.exit.exit_signal));
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);

        ASSERT_ERROR(proc_event_parse(NULL, 100, &e), EINVAL);
        ASSERT_ERROR(proc_event_parse(BUF, n, NULL), EINVAL);
}

TEST(parse_bad_task_ids) {
        struct proc_event ev = event_of(PROC_EVENT_EXEC);
        ProcEvent e;
        size_t n;

        ev.event_data.exec.process_pid = 0;
        ev.event_data.exec.process_tgid = 5;
        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);
        ev.event_data.exec.process_pid = 5;
        ev.event_data.exec.process_tgid = -1;
        n = canned(BUF, &ev, sizeof(ev));
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), EBADMSG);
}

TEST(parse_not_ours) {
        struct proc_event ev = event_of(PROC_EVENT_EXEC);
        ProcEvent e;
        size_t n;

        ev.event_data.exec.process_pid = ev.event_data.exec.process_tgid = 5;

        n = canned(BUF, &ev, sizeof(ev));
        put_u32(BUF, OFF_CN + offsetof(struct cn_msg, id.idx), CN_IDX_PROC + 1);   /* CN_IDX_CIFS */
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), ENOMSG);

        n = canned(BUF, &ev, sizeof(ev));
        put_u32(BUF, OFF_CN + offsetof(struct cn_msg, id.val), 2);
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), ENOMSG);

        n = canned(BUF, &ev, sizeof(ev));
        put_u16(BUF, offsetof(struct nlmsghdr, nlmsg_type), NLMSG_ERROR);
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), ENOMSG);
        put_u16(BUF, offsetof(struct nlmsghdr, nlmsg_type), NLMSG_OVERRUN);
        ASSERT_ERROR(proc_event_parse(BUF, n, &e), ENOMSG);
}

TEST(type_names_and_errors) {
        for (ProcEventType t = 0; t < _PROC_EVENT_TYPE_MAX; t++)
                ASSERT_TRUE(proc_event_type_to_string(t) != NULL);
        ASSERT_TRUE(proc_event_type_to_string(_PROC_EVENT_TYPE_MAX) == NULL);
        ASSERT_TRUE(proc_event_type_to_string((ProcEventType) -1) == NULL);

        ASSERT_TRUE(proc_conn_error_is_unavailable(-EOPNOTSUPP));
        ASSERT_TRUE(proc_conn_error_is_unavailable(-ECONNREFUSED));
        ASSERT_TRUE(proc_conn_error_is_unavailable(-EPROTONOSUPPORT));
        ASSERT_TRUE(proc_conn_error_is_unavailable(-ETIMEDOUT));
        ASSERT_TRUE(proc_conn_error_is_unavailable(-EPERM));
        ASSERT_TRUE(!proc_conn_error_is_unavailable(-ENOMEM));
        ASSERT_TRUE(!proc_conn_error_is_unavailable(0));
        ASSERT_STREQ(proc_conn_unavailable_reason(-EOPNOTSUPP), "not in the initial pid and user namespaces");
        ASSERT_TRUE(proc_conn_unavailable_reason(-EINVAL) == NULL);
        ASSERT_TRUE(proc_conn_free(NULL) == NULL);
        ASSERT_TRUE(proc_conn_stats(NULL) == NULL);
}

/* ---- the real connector ---------------------------------------------------------------------------- */

typedef struct Seen {
        ProcEventType type;
        pid_t pid, tgid, parent_pid;
        uint32_t exit_code;
        bool named;
        char name[TASK_COMM_LEN];
} Seen;

typedef struct Recorder {
        pid_t watch_tgid;               /* record events of this process (0: none) */
        pid_t watch_parent;             /* count forks/exits of children of this pid */
        Seen seen[32];
        size_t n_seen;
        uint64_t child_forks, child_exits, rescans;
} Recorder;

#define PID_LIMIT (1 << 22)                     /* PID_MAX_LIMIT */
static uint64_t children[PID_LIMIT / 64];       /* forked by watch_parent, exit not seen yet */

static int record(const ProcEvent *ev, const TaskName *task, void *userdata) {
        Recorder *rec = userdata;

        if (ev->type == PROC_EVENT_TYPE_RESCAN) {
                rec->rescans++;
                return 0;
        }
        /*
         * Children are recognised by their fork event's parent: the exit event's parent fields read 0 when the
         * parent has already reaped the child (proc_exit_connector() runs after exit_notify(); seen on 6.18).
         */
        if (rec->watch_parent > 0 && ev->pid > 0 && ev->pid < PID_LIMIT) {
                uint64_t bit = UINT64_C(1) << (ev->pid % 64);

                if (ev->type == PROC_EVENT_TYPE_FORK && ev->parent_tgid == rec->watch_parent) {
                        rec->child_forks++;
                        children[ev->pid / 64] |= bit;
                } else if (ev->type == PROC_EVENT_TYPE_EXIT && (children[ev->pid / 64] & bit)) {
                        rec->child_exits++;
                        children[ev->pid / 64] &= ~bit;
                }
        }
        if (rec->watch_tgid > 0 && ev->tgid == rec->watch_tgid && rec->n_seen < ELEMENTSOF(rec->seen)) {
                Seen *s = &rec->seen[rec->n_seen++];

                *s = (Seen) { .type = ev->type, .pid = ev->pid, .tgid = ev->tgid, .parent_pid = ev->parent_pid,
                              .exit_code = ev->exit_code, .named = task != NULL };
                if (task)
                        memcpy(s->name, task->comm, TASK_COMM_LEN);
        }
        return 0;
}

static void self_comm(char ret[TASK_COMM_LEN]) {
        int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, ret, TASK_COMM_LEN - 1) : -1;

        ret[n > 0 ? n : 0] = 0;
        ret[strcspn(ret, "\n")] = 0;
        if (fd >= 0)
                close(fd);
}

/* Runs the loop until @done(rec) or @timeout_usec. */
static bool run_until(sd_event *e, Recorder *rec, bool (*done)(const Recorder *rec), uint64_t timeout_usec) {
        uint64_t deadline = mono_usec() + timeout_usec;

        while (!done(rec)) {
                if (mono_usec() >= deadline)
                        return false;
                if (sd_event_run(e, 50 * 1000) < 0)
                        return false;
        }
        return true;
}

static bool saw_exit(const Recorder *rec) {
        for (size_t i = 0; i < rec->n_seen; i++)
                if (rec->seen[i].type == PROC_EVENT_TYPE_EXIT && rec->seen[i].pid == rec->watch_tgid)
                        return true;
        return false;
}

static int make_exec_probe(char dir[static 64], char path[static 128]) {
        strcpy(dir, "/tmp/test-proc-conn.XXXXXX");
        if (!mkdtemp(dir))
                return -errno;
        (void) snprintf(path, 128, "%s/sfq-exec-probe", dir);
        /* comm after exec is the basename of the path given to execve (begin_new_exec()), not of the target. */
        if (symlink("/bin/true", path) < 0)
                return -errno;
        return 0;
}

TEST(real_fork_comm_exec_exit) {
        _cleanup_(task_names_freep) TaskNames *names = NULL;
        _cleanup_(proc_conn_freep) ProcConn *p = NULL;
        sd_event *e = NULL;
        Recorder rec = {};
        ProcConnOptions o = { .handler = record, .userdata = &rec };
        char dir[64], path[128], me[TASK_COMM_LEN];
        const ProcConnStats *st;
        pid_t child;
        int status;
        bool ok;

        self_comm(me);
        ASSERT_OK(make_exec_probe(dir, path));
        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(task_names_new("/proc", 0, &names));
        ASSERT_OK(proc_conn_new_full(e, names, &o, &p));
        st = proc_conn_stats(p);
        ASSERT_TRUE(st->rcvbuf_bytes >= PROC_CONN_RCVBUF_DEFAULT);
        ASSERT_OK(task_names_lookup(names, getpid(), NULL));     /* the initial scan */

        child = fork();
        ASSERT_TRUE(child >= 0);
        if (child == 0) {
                (void) prctl(PR_SET_NAME, "sfq-comm-probe");
                execl(path, "sfq-exec-probe", (char *) NULL);
                _exit(127);
        }
        rec.watch_tgid = child;
        /* The child stays a zombie (not reaped) until its exit event is read: its comm stays readable. */
        ok = run_until(e, &rec, saw_exit, 5 * 1000 * 1000);
        ASSERT_TRUE(waitpid(child, &status, 0) == child);
        unlink(path);
        rmdir(dir);
        sd_event_unref(e);
        ASSERT_TRUE(ok);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

        ASSERT_EQ(rec.n_seen, 4);
        ASSERT_EQ(rec.seen[0].type, PROC_EVENT_TYPE_FORK);
        ASSERT_EQ(rec.seen[0].pid, child);
        ASSERT_EQ(rec.seen[0].parent_pid, getpid());
        ASSERT_TRUE(rec.seen[0].named);
        ASSERT_STREQ(rec.seen[0].name, me);                      /* inherited from us */
        ASSERT_EQ(rec.seen[1].type, PROC_EVENT_TYPE_COMM);
        ASSERT_STREQ(rec.seen[1].name, "sfq-comm-probe");
        ASSERT_EQ(rec.seen[2].type, PROC_EVENT_TYPE_EXEC);
        ASSERT_STREQ(rec.seen[2].name, "sfq-exec-probe");        /* read from /proc */
        ASSERT_EQ(rec.seen[3].type, PROC_EVENT_TYPE_EXIT);
        ASSERT_STREQ(rec.seen[3].name, "sfq-exec-probe");        /* the name it died with */
        ASSERT_EQ(rec.seen[3].exit_code, 0);
        ASSERT_ERROR(task_names_lookup(names, child, NULL), ENOENT);

        ASSERT_TRUE(st->events[PROC_EVENT_TYPE_FORK] >= 1);
        ASSERT_TRUE(st->events[PROC_EVENT_TYPE_EXEC] >= 1);
        ASSERT_TRUE(st->events[PROC_EVENT_TYPE_COMM] >= 1);
        ASSERT_TRUE(st->events[PROC_EVENT_TYPE_EXIT] >= 1);
        ASSERT_U64_EQ(st->overruns, 0);
        ASSERT_U64_EQ(st->malformed, 0);
        ASSERT_TRUE(st->dispatches >= 1);
}

static void *thread_main(void *arg) {
        (void) prctl(PR_SET_NAME, "sfq-thread");
        *(pid_t *) arg = gettid();
        return NULL;
}

TEST(real_thread_events) {
        _cleanup_(task_names_freep) TaskNames *names = NULL;
        _cleanup_(proc_conn_freep) ProcConn *p = NULL;
        sd_event *e = NULL;
        Recorder rec = { .watch_tgid = getpid() };
        ProcConnOptions o = { .handler = record, .userdata = &rec };
        char me[TASK_COMM_LEN];
        pthread_t th;
        pid_t tid = 0;
        size_t fork_at = SIZE_MAX, comm_at = SIZE_MAX, exit_at = SIZE_MAX;
        uint64_t deadline;

        self_comm(me);
        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(task_names_new("/proc", 0, &names));
        ASSERT_OK(proc_conn_new_full(e, names, &o, &p));
        ASSERT_TRUE(pthread_create(&th, NULL, thread_main, &tid) == 0);
        ASSERT_TRUE(pthread_join(th, NULL) == 0);

        deadline = mono_usec() + 5 * 1000 * 1000;
        while (exit_at == SIZE_MAX && mono_usec() < deadline) {
                (void) sd_event_run(e, 50 * 1000);
                for (size_t i = 0; i < rec.n_seen; i++) {
                        if (rec.seen[i].pid != tid)
                                continue;
                        if (rec.seen[i].type == PROC_EVENT_TYPE_FORK)
                                fork_at = i;
                        else if (rec.seen[i].type == PROC_EVENT_TYPE_COMM)
                                comm_at = i;
                        else if (rec.seen[i].type == PROC_EVENT_TYPE_EXIT)
                                exit_at = i;
                }
        }
        sd_event_unref(e);
        ASSERT_TRUE(fork_at < comm_at && comm_at < exit_at && exit_at != SIZE_MAX);
        /* A thread's fork event names the process's parent (CLONE_THREAD keeps real_parent), not us. */
        ASSERT_EQ(rec.seen[fork_at].parent_pid, getppid());
        ASSERT_STREQ(rec.seen[fork_at].name, me);                /* the leader's name */
        ASSERT_EQ(rec.seen[comm_at].tgid, getpid());
        ASSERT_STREQ(rec.seen[comm_at].name, "sfq-thread");
        ASSERT_STREQ(rec.seen[exit_at].name, "sfq-thread");
        ASSERT_ERROR(task_names_lookup(names, tid, NULL), ENOENT);
        ASSERT_OK(task_names_lookup(names, getpid(), NULL));
}

/* Drains until the socket is empty twice in a row (no event loop), for at most 10 s. */
static int drain_all(ProcConn *p) {
        uint64_t deadline = mono_usec() + 10 * 1000 * 1000;
        int r, empty = 0;

        while (empty < 2 && mono_usec() < deadline) {
                r = proc_conn_drain(p);
                if (r < 0)
                        return r;
                if (r == 0) {
                        empty++;
                        usleep(2000);
                } else
                        empty = 0;
        }
        return 0;
}

static pid_t fork_exit_now(void) {
        pid_t pid = fork();

        if (pid == 0)
                _exit(0);
        return pid;
}

TEST(real_burst_fits_default_buffer) {
        enum { N = 2000 };
        _cleanup_(task_names_freep) TaskNames *names = NULL;
        _cleanup_(proc_conn_freep) ProcConn *p = NULL;
        Recorder rec = { .watch_parent = getpid() };
        ProcConnOptions o = { .handler = record, .userdata = &rec };
        const ProcConnStats *st;
        uint64_t t0, t1, t2, msgs0, drain0;

        ASSERT_OK(task_names_new("/proc", 0, &names));
        ASSERT_OK(proc_conn_new_full(NULL, names, &o, &p));
        st = proc_conn_stats(p);
        ASSERT_OK(drain_all(p));
        msgs0 = st->messages;
        drain0 = st->drain_ns;

        /* N children forked and reaped without reading a single event: ~2N events queue up. */
        t0 = mono_usec();
        for (unsigned i = 0; i < N; i++) {
                pid_t pid = fork_exit_now();

                ASSERT_TRUE(pid > 0);
                ASSERT_TRUE(waitpid(pid, NULL, 0) == pid);
        }
        t1 = mono_usec();
        ASSERT_OK(drain_all(p));
        t2 = mono_usec();
        /*
         * proc_exit_connector() runs after exit_notify() in do_exit() (kernel/exit.c): waitpid() can return
         * before the exit event is sent, so the last few may still be on their way.
         */
        for (uint64_t deadline = mono_usec() + 2000000; rec.child_exits < N && mono_usec() < deadline;)
                ASSERT_OK(drain_all(p));

        ASSERT_U64_EQ(st->overruns, 0);
        ASSERT_U64_EQ(rec.child_forks, N);
        ASSERT_U64_EQ(rec.child_exits, N);
        ASSERT_U64_EQ(st->malformed, 0);
        printf("# %u fork+exit in %.1f ms (%.0f/s); %" PRIu64 " messages drained in %.2f ms of drain time "
               "(%.0f ns each, %.1f ms wall with idle polls); rcvbuf %zu; max batch %" PRIu64 "\n",
               N, (t1 - t0) / 1000.0, N * 1e6 / (double) (t1 - t0), st->messages - msgs0,
               (st->drain_ns - drain0) / 1e6, (double) (st->drain_ns - drain0) / (double) (st->messages - msgs0),
               (t2 - t1) / 1000.0, st->rcvbuf_bytes, st->max_batch);
}

/*
 * Children that name themselves, rename themselves when told (a byte on their command pipe), ack on a
 * second pipe, and stay until killed. Killed and reaped by the cleanup whatever happens to the test.
 */
typedef struct Sleepers {
        size_t n;
        pid_t pid[4];
        int cmd[4], ack[4];
} Sleepers;

static void sleepers_done(Sleepers *s) {
        for (size_t i = 0; i < s->n; i++) {
                (void) kill(s->pid[i], SIGKILL);
                (void) waitpid(s->pid[i], NULL, 0);
                close(s->cmd[i]);
                close(s->ack[i]);
        }
        s->n = 0;
}

static int sleeper_spawn(Sleepers *s, const char *name, const char *new_name) {
        int cmd[2], ack[2];
        pid_t pid;
        char c;

        if (s->n >= ELEMENTSOF(s->pid))
                return -E2BIG;
        if (pipe2(cmd, O_CLOEXEC) < 0)
                return -errno;
        if (pipe2(ack, O_CLOEXEC) < 0) {
                close(cmd[0]);
                close(cmd[1]);
                return -errno;
        }
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                (void) prctl(PR_SET_NAME, name);
                if (write(ack[1], "r", 1) != 1)
                        _exit(1);
                while (read(cmd[0], &c, 1) == 1) {
                        (void) prctl(PR_SET_NAME, new_name);
                        if (write(ack[1], "k", 1) != 1)
                                _exit(1);
                }
                pause();
                _exit(0);
        }
        close(cmd[0]);
        close(ack[1]);
        s->pid[s->n] = pid;
        s->cmd[s->n] = cmd[1];
        s->ack[s->n] = ack[0];
        s->n++;
        return read(ack[0], &c, 1) == 1 ? 0 : -EIO;
}

static int sleeper_rename(Sleepers *s, size_t i) {
        char c;

        if (write(s->cmd[i], "x", 1) != 1 || read(s->ack[i], &c, 1) != 1)
                return -EIO;
        return 0;
}

typedef struct Compare {
        TaskNames *other;
        size_t *mismatched;
} Compare;

static int compare_with(const TaskName *n, void *userdata) {
        Compare *c = userdata;
        TaskName m;

        if (task_names_lookup(c->other, n->pid, &m) < 0 || m.tgid != n->tgid || strcmp(m.comm, n->comm) != 0)
                (*c->mismatched)++;
        return 0;
}

TEST(real_overrun_rescan) {
        enum { SLEEPERS = 3, BURST = 400 };
        _cleanup_(task_names_freep) TaskNames *names = NULL;
        _cleanup_(proc_conn_freep) ProcConn *p = NULL;
        _cleanup_(sleepers_done) Sleepers sl = {};
        Recorder rec = { .watch_parent = getpid() };
        ProcConnOptions o = { .rcvbuf_bytes = 1, .handler = record, .userdata = &rec };
        const ProcConnStats *st;
        pid_t burst[BURST];
        size_t stale = 0, mismatched = 0;

        ASSERT_OK(task_names_new("/proc", 0, &names));
        ASSERT_OK(proc_conn_new_full(NULL, names, &o, &p));
        st = proc_conn_stats(p);
        ASSERT_TRUE(st->rcvbuf_bytes < 16384);                  /* the kernel's minimum, a few events */

        for (int i = 0; i < SLEEPERS; i++) {
                char old[16], new[16];

                (void) snprintf(old, sizeof(old), "sfq-old-%d", i);
                (void) snprintf(new, sizeof(new), "sfq-new-%d", i);
                ASSERT_OK(sleeper_spawn(&sl, old, new));
        }
        ASSERT_OK(drain_all(p));

        /* Without reading: a burst of forks and exits, and the sleepers' renames, overflow the queue. */
        for (int i = 0; i < BURST; i++) {
                burst[i] = fork_exit_now();
                ASSERT_TRUE(burst[i] > 0);
        }
        for (int i = 0; i < SLEEPERS; i++)
                ASSERT_OK(sleeper_rename(&sl, i));
        for (int i = 0; i < BURST; i++)
                ASSERT_TRUE(waitpid(burst[i], NULL, 0) == burst[i]);

        ASSERT_OK(drain_all(p));
        ASSERT_TRUE(st->overruns >= 1);
        ASSERT_TRUE(st->rescans >= 1);
        ASSERT_TRUE(rec.rescans >= 1);
        ASSERT_TRUE(rec.child_exits < BURST);                    /* events were really lost */

        /* Consistent afterwards: the renames are known, the exited children are not. */
        for (int i = 0; i < SLEEPERS; i++) {
                TaskName n;
                char want[16];

                (void) snprintf(want, sizeof(want), "sfq-new-%d", i);
                ASSERT_OK(task_names_lookup(names, sl.pid[i], &n));
                ASSERT_STREQ(n.comm, want);
                ASSERT_EQ(n.tgid, sl.pid[i]);
        }
        for (int i = 0; i < BURST; i++) {
                char path[64];

                (void) snprintf(path, sizeof(path), "/proc/%d", (int) burst[i]);
                /* Unless the pid was reused meanwhile, it must be gone from the table. */
                if (task_names_lookup(names, burst[i], NULL) == 0 && access(path, F_OK) < 0)
                        stale++;
        }
        ASSERT_EQ(stale, 0);
        ASSERT_OK(task_names_lookup(names, getpid(), NULL));
        ASSERT_OK(task_names_lookup(names, 1, NULL));

        /* And the whole table agrees with /proc (the machine is idle: allow a couple of races). */
        {
                _cleanup_(task_names_freep) TaskNames *fresh = NULL;
                Compare a = { .mismatched = &mismatched }, b = { .mismatched = &mismatched };

                ASSERT_OK(task_names_new("/proc", 0, &fresh));
                ASSERT_OK(task_names_rescan(fresh));
                a.other = fresh;
                b.other = names;
                ASSERT_OK(task_names_foreach(names, compare_with, &a));
                ASSERT_OK(task_names_foreach(fresh, compare_with, &b));
                printf("# overrun: %" PRIu64 " overruns, %" PRIu64 " rescans (%.2f ms each), %zu entries, %zu "
                       "differences with a fresh scan; rcvbuf %zu\n", st->overruns, st->rescans,
                       (double) st->rescan_ns / 1e6 / (double) st->rescans, task_names_size(names), mismatched,
                       st->rcvbuf_bytes);
                ASSERT_TRUE(mismatched <= 2);
        }
}

TEST(real_unsubscribe_and_resubscribe) {
        _cleanup_(task_names_freep) TaskNames *names = NULL;
        ProcConnOptions o = { .no_initial_scan = true };

        ASSERT_OK(task_names_new("/proc", 0, &names));
        /* Several listeners at once, and again after freeing: each gets its own acknowledgement. */
        for (int round = 0; round < 3; round++) {
                _cleanup_(proc_conn_freep) ProcConn *a = NULL, *b = NULL;

                ASSERT_OK(proc_conn_new_full(NULL, names, &o, &a));
                ASSERT_OK(proc_conn_new_full(NULL, NULL, &o, &b));
                ASSERT_TRUE(proc_conn_get_fd(a) >= 0);
        }
        ASSERT_EQ(task_names_size(names), 0);
}

/* 6.6+ (CI runs 6.18): the filter leaves only fork/exec/comm/exit; without it setsid/setuid come through. */
TEST(real_filter) {
        _cleanup_(proc_conn_freep) ProcConn *f = NULL, *u = NULL;
        ProcConnOptions no = { .no_filter = true };
        const ProcConnStats *fs, *us;

        ASSERT_OK(proc_conn_new_full(NULL, NULL, NULL, &f));
        ASSERT_OK(proc_conn_new_full(NULL, NULL, &no, &u));
        fs = proc_conn_stats(f);
        us = proc_conn_stats(u);
        ASSERT_TRUE(fs->filtered && !us->filtered);
        for (int i = 0; i < 5; i++) {
                pid_t c = fork();

                ASSERT_TRUE(c >= 0);
                if (c == 0) {
                        (void) setsid();
                        _exit(setuid(65534) < 0);
                }
                ASSERT_TRUE(waitpid(c, NULL, 0) == c);
        }
        for (uint64_t deadline = mono_usec() + 2000000; us->events[PROC_EVENT_TYPE_EXIT] < 5 && mono_usec() < deadline;) {
                ASSERT_OK(drain_all(f));
                ASSERT_OK(drain_all(u));
        }
        ASSERT_TRUE(us->events[PROC_EVENT_TYPE_SID] >= 5);
        ASSERT_TRUE(us->events[PROC_EVENT_TYPE_UID] >= 5);
        ASSERT_TRUE(fs->events[PROC_EVENT_TYPE_FORK] >= 5);
        ASSERT_TRUE(fs->events[PROC_EVENT_TYPE_EXIT] >= 5);
        ASSERT_U64_EQ(fs->events[PROC_EVENT_TYPE_SID], 0);
        ASSERT_U64_EQ(fs->events[PROC_EVENT_TYPE_UID], 0);
}

/* With .sessions (the live model's task groups) the filter passes setsid() too, decoded with the leader's ids
 * (proc_sid_connector(group_leader) in ksys_setsid(), kernel/sys.c), and still keeps setuid() out. */
TEST(real_filter_sessions) {
        _cleanup_(proc_conn_freep) ProcConn *p = NULL;
        ProcConnOptions o = { .sessions = true, .handler = record };
        Recorder rec = {};
        const ProcConnStats *st;
        pid_t c;

        o.userdata = &rec;
        ASSERT_OK(proc_conn_new_full(NULL, NULL, &o, &p));
        st = proc_conn_stats(p);
        ASSERT_TRUE(st->filtered);
        c = fork();
        ASSERT_TRUE(c >= 0);
        if (c == 0) {
                (void) setsid();
                _exit(setuid(65534) < 0);
        }
        rec.watch_tgid = c;
        ASSERT_TRUE(waitpid(c, NULL, 0) == c);
        for (uint64_t deadline = mono_usec() + 2000000; !saw_exit(&rec) && mono_usec() < deadline;)
                ASSERT_OK(drain_all(p));
        ASSERT_TRUE(saw_exit(&rec));
        ASSERT_TRUE(st->events[PROC_EVENT_TYPE_SID] >= 1);
        ASSERT_U64_EQ(st->events[PROC_EVENT_TYPE_UID], 0);
        for (size_t i = 0; i < rec.n_seen; i++)
                if (rec.seen[i].type == PROC_EVENT_TYPE_SID) {
                        ASSERT_EQ(rec.seen[i].pid, c);
                        ASSERT_EQ(rec.seen[i].tgid, c);
                        return;
                }
        TEST_FAIL("no sid event of the child %d among its %zu events", (int) c, rec.n_seen);
}

static int fail_on_fork(const ProcEvent *ev, const TaskName *task, void *userdata) {
        return ev->type == PROC_EVENT_TYPE_FORK && ev->parent_tgid == *(pid_t *) userdata ? -ECANCELED : 0;
}

TEST(real_handler_error_ends_loop) {
        _cleanup_(proc_conn_freep) ProcConn *p = NULL;
        sd_event *e = NULL;
        pid_t me = getpid(), child;
        ProcConnOptions o = { .handler = fail_on_fork, .userdata = &me };
        int r;

        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(proc_conn_new_full(e, NULL, &o, &p));
        child = fork_exit_now();
        ASSERT_TRUE(child > 0);
        ASSERT_TRUE(waitpid(child, NULL, 0) == child);
        (void) sd_event_add_time_relative(e, NULL, CLOCK_MONOTONIC, 5 * 1000 * 1000, 0, NULL, (void *) (intptr_t) -ETIME);
        r = sd_event_loop(e);
        p = proc_conn_free(p);
        sd_event_unref(e);
        ASSERT_ERROR(r, ECANCELED);
}

/* Any local process can unicast to our netlink port: such messages must not touch the table. */
TEST(real_spoofed_messages_ignored) {
        _cleanup_(task_names_freep) TaskNames *names = NULL;
        _cleanup_(proc_conn_freep) ProcConn *p = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct sockaddr_nl self = {}, to = { .nl_family = AF_NETLINK };
        socklen_t l = sizeof(self);
        struct proc_event ev = event_of(PROC_EVENT_COMM);
        char me[TASK_COMM_LEN];
        TaskName n;
        size_t len;

        self_comm(me);
        ASSERT_OK(task_names_new("/proc", 0, &names));
        ASSERT_OK(proc_conn_new_full(NULL, names, NULL, &p));
        ASSERT_OK(drain_all(p));
        ASSERT_TRUE(getsockname(proc_conn_get_fd(p), (struct sockaddr *) &self, &l) == 0);

        ev.event_data.comm.process_pid = ev.event_data.comm.process_tgid = getpid();
        strcpy(ev.event_data.comm.comm, "spoofed");
        len = canned(BUF, &ev, sizeof(ev));
        to.nl_pid = self.nl_pid;
        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(sendto(fd, BUF, len, 0, (struct sockaddr *) &to, sizeof(to)) == (ssize_t) len);
        ASSERT_OK(drain_all(p));
        ASSERT_TRUE(proc_conn_stats(p)->foreign >= 1);
        ASSERT_U64_EQ(proc_conn_stats(p)->events[PROC_EVENT_TYPE_COMM], 0);
        ASSERT_OK(task_names_lookup(names, getpid(), &n));
        ASSERT_STREQ(n.comm, me);
}

/* ---- unavailable -------------------------------------------------------------------------------------- */

typedef struct ProbeResult {
        int plain;                      /* proc_conn_new() */
        int handshake;                  /* with skip_namespace_check: the handshake alone */
        uint64_t plain_usec, handshake_usec;
} ProbeResult;

static ProbeResult probe(void) {
        ProbeResult res = {};
        ProcConnOptions o = { .skip_namespace_check = true };
        ProcConn *p = NULL;
        uint64_t t;

        t = mono_usec();
        res.plain = proc_conn_new(NULL, NULL, &p);
        res.plain_usec = mono_usec() - t;
        p = proc_conn_free(p);
        t = mono_usec();
        res.handshake = proc_conn_new_full(NULL, NULL, &o, &p);
        res.handshake_usec = mono_usec() - t;
        p = proc_conn_free(p);
        return res;
}

/* `SFQ_PROC_CONN_PROBE=1 test-proc-conn` (as run under unshare(1) below) prints a probe and exits. */
__attribute__((constructor)) static void probe_mode(void) {
        ProbeResult res;

        if (!getenv("SFQ_PROC_CONN_PROBE"))
                return;
        res = probe();
        printf("pid=%d plain=%d handshake=%d plain_usec=%" PRIu64 " handshake_usec=%" PRIu64 "\n", (int) getpid(),
               res.plain, res.handshake, res.plain_usec, res.handshake_usec);
        fflush(stdout);
        exit(0);
}

/* Runs probe() in a child after unshare(@flags) (and a fork into the new pid namespace if asked). */
static int probe_in_namespace(int flags, ProbeResult *ret) {
        int fds[2];
        pid_t pid;
        ssize_t n;
        int status;
        struct pollfd pfd;

        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                ProbeResult res;

                close(fds[0]);
                alarm(20);                      /* a hang dies instead of blocking the suite */
                if (unshare(flags) < 0)
                        _exit(2);
                if (flags & CLONE_NEWPID) {
                        pid_t init = fork();

                        if (init < 0)
                                _exit(3);
                        if (init > 0) {
                                int st;

                                _exit(waitpid(init, &st, 0) == init && WIFEXITED(st) ? WEXITSTATUS(st) : 4);
                        }
                        /* PID 1 of the new namespace, with its own /proc (as --mount-proc does). */
                        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                                _exit(5);
                }
                res = probe();
                _exit(write(fds[1], &res, sizeof(res)) == sizeof(res) ? 0 : 6);
        }
        close(fds[1]);
        pfd = (struct pollfd) { .fd = fds[0], .events = POLLIN };
        if (poll(&pfd, 1, 30 * 1000) <= 0) {
                kill(pid, SIGKILL);
                (void) waitpid(pid, NULL, 0);
                close(fds[0]);
                return -ETIMEDOUT;
        }
        n = read(fds[0], ret, sizeof(*ret));
        close(fds[0]);
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return -ECHILD;
        return n == sizeof(*ret) ? 0 : -EIO;
}

TEST(unavailable_in_new_pid_namespace) {
        ProbeResult res;

        ASSERT_OK(probe_in_namespace(CLONE_NEWPID | CLONE_NEWNS, &res));
        printf("# new pid namespace: plain %d after %" PRIu64 " µs, handshake alone %d after %" PRIu64 " µs\n",
               res.plain, res.plain_usec, res.handshake, res.handshake_usec);
        /* The namespace check answers at once... */
        ASSERT_ERROR(res.plain, EOPNOTSUPP);
        ASSERT_TRUE(res.plain_usec < 100 * 1000);
        /* ...and without it the handshake still refuses, within its bound, rather than hang or listen. */
        ASSERT_ERROR(res.handshake, ETIMEDOUT);
        ASSERT_TRUE(res.handshake_usec >= PROC_CONN_ACK_TIMEOUT_USEC_DEFAULT);
        ASSERT_TRUE(res.handshake_usec < 5 * PROC_CONN_ACK_TIMEOUT_USEC_DEFAULT);
        ASSERT_TRUE(proc_conn_error_is_unavailable(res.plain));
        ASSERT_TRUE(proc_conn_error_is_unavailable(res.handshake));
}

TEST(unavailable_in_new_net_namespace) {
        ProbeResult res;

        ASSERT_OK(probe_in_namespace(CLONE_NEWNET, &res));
        printf("# new net namespace: %d after %" PRIu64 " µs\n", res.plain, res.plain_usec);
        ASSERT_ERROR(res.plain, ECONNREFUSED);
        ASSERT_ERROR(res.handshake, ECONNREFUSED);
        ASSERT_TRUE(res.plain_usec < 100 * 1000);
}

TEST(unavailable_under_unshare_command) {
        char self[PATH_MAX], cmd[PATH_MAX + 128], line[256] = {};
        ssize_t n;
        FILE *f;
        int pid = 0, plain = 0, handshake = 0, status;
        uint64_t plain_usec = 0, handshake_usec = 0;

        n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        ASSERT_TRUE(n > 0);
        self[n] = 0;
        (void) snprintf(cmd, sizeof(cmd),
                        "SFQ_PROC_CONN_PROBE=1 timeout -s KILL 30 unshare --pid --fork --mount-proc '%s'", self);
        f = popen(cmd, "r");
        ASSERT_TRUE(f);
        if (!fgets(line, sizeof(line), f))
                line[0] = 0;
        status = pclose(f);
        printf("# unshare --pid --fork --mount-proc: %s", line);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        ASSERT_EQ(sscanf(line, "pid=%d plain=%d handshake=%d plain_usec=%" SCNu64 " handshake_usec=%" SCNu64, &pid,
                         &plain, &handshake, &plain_usec, &handshake_usec), 5);
        ASSERT_EQ(pid, 1);
        ASSERT_ERROR(plain, EOPNOTSUPP);
        ASSERT_ERROR(handshake, ETIMEDOUT);
        ASSERT_TRUE(plain_usec < 100 * 1000);
}

/* Outside any namespace trick, here (CI: root, initial namespaces), the connector must work. */
TEST(available_here) {
        ProbeResult res = probe();

        ASSERT_OK(res.plain);
        ASSERT_OK(res.handshake);
        printf("# initial namespaces: subscribed in %" PRIu64 " µs\n", res.plain_usec);
}

DEFINE_TEST_MAIN
